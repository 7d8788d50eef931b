//! The enhanced ranking's parameters and its evidence → confidence curve.

use super::FIELDS;

/// Ranking parameters (chosen by measurement on the dev split of `bench/quality.mjs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// BM25 term-frequency saturation.
    pub k1: f64,
    /// Field weights: name, server, searchHint, description, schema.
    pub weights: [f64; FIELDS],
    /// Field length normalization (0 = none, 1 = full).
    pub b: [f64; FIELDS],
    /// Query weight of a one-edit correction of an unknown word.
    pub typo_weight: f64,
    /// Query weight of a lexicon expansion of CJK text.
    pub lexicon_weight: f64,
    /// Abstain only when the best tool also matches less than this share of the query's
    /// IDF mass (see [`Params::abstain_confidence`]; 0 turns abstaining off).
    pub abstain_coverage: f64,
    /// How much a query word that no tool has counts in the query's mass (×its IDF).
    pub unknown_weight: f64,
    /// Abstain when the best tool's confidence ([`confidence`]) is below this, it covers
    /// less than [`Params::abstain_coverage`] of the request, no name matched and no server
    /// filter was given: the request matched only a few weak words (0 turns it off).
    pub abstain_confidence: f64,
    /// Evidence at which a tool's confidence is one half (see [`confidence`]).
    pub confidence_scale: f64,
    /// Weight of per-clause coverage in multi-step requests (0 turns it off; see
    /// [`super::EnhancedIndex::search`]).
    pub clause_weight: f64,
    /// Query weight of a synonym ([`super::analyze::SYNONYMS`]) of a query word.
    pub synonym_weight: f64,
    /// Name-field weight of a generic word ([`super::analyze::GENERIC_NAME_WORDS`]) in place of
    /// `weights[0]`.
    pub generic_name_weight: f64,
    /// Query weight of words inside quotation marks (argument values: "named 'Daily Tasks'").
    pub quote_weight: f64,
    /// Query weight of a character of a CJK run of two or more (a unigram beside the run's
    /// bigrams, see [`super::analyze`]): weaker evidence than a word, outside the request's IDF
    /// mass and the mass a tool covers (0 or below leaves unigrams out of requests; a lone
    /// character is a word).
    pub unigram_weight: f64,
    /// The crowd rule (0 turns it off, the default): a request is answered with nothing when
    /// at least [`CROWD_RANK`] tools match, the best scores below
    /// [`Params::crowd_confidence`], and it stands less than this above
    /// [`Params::crowd_weight`] × the score of the [`CROWD_RANK`]-th: no tool stands out of
    /// the crowd of weak matches. It looks at the final scores, clause coverage included.
    pub crowd_gap: f64,
    /// How much of the crowd's score the best score is measured against (see
    /// [`Params::crowd_gap`]).
    pub crowd_weight: f64,
    /// The crowd rule applies only below this best score (taken as 1 when larger: name matches
    /// score 1 and more, and the rule never abstains on a named tool).
    pub crowd_confidence: f64,
    /// The crowd rule applies only when the best tool matches less than this share of the
    /// request's IDF mass (its `coverage`, see [`super::EnhancedIndex::explain`]; above 1,
    /// whatever it matches).
    pub crowd_coverage: f64,
}

impl Params {
    /// Whether the crowd rule ([`Params::crowd_gap`]) is on.
    pub fn crowd_rule_on(&self) -> bool {
        self.crowd_gap > 0.0
    }
}

/// Which tool is the crowd in the crowd rule ([`Params::crowd_gap`]): the 30th best.
pub const CROWD_RANK: usize = 30;

/// A word more than this share of the tools have is common (see [`COMMON_FROM`]): as a
/// synonym it is not added to a request, and in a request that also has rarer words it adds
/// its evidence only to the tools those found and the tools the request names (unless it is
/// a required `+word`; `EnhancedIndex::accumulate_terms`). Chosen on
/// the dev split: for synonyms 0.2–0.3 rank the same and 0.15 and below lose MetaTool
/// requests; in the scoring pass 0.15–0.5 rank every dev row the same, 0.1 loses an ETOM L2
/// request.
pub const COMMON_SHARE: f64 = 0.25;

/// A word is common only when at least this many tools have it too (in a small index no
/// word is).
pub const COMMON_FROM: usize = 32;

/// The crowd rule chosen on the dev split (`bench/quality/lexical-abstain.mjs --cv`): `(gap,
/// weight, confidence, coverage)`. Opt in with these values; [`Params::default`] keeps the
/// rule off.
pub const CROWD_RULE: (f64, f64, f64, f64) = (0.195, 1.0, 0.4, 0.45);

/// A tool's confidence from its evidence: `e / (e + scale)`, in `[0, 1)`. The evidence is
/// the tool's BM25F score divided by the largest IDF the index can give (that of a word in
/// one tool), so it counts the query words the tool matches, each by how rare and how
/// prominent it is: about 1 for one rare word in the name, 2–3 for a typical right answer,
/// whatever the length of the request.
pub fn confidence(evidence: f64, scale: f64) -> f64 {
    let e = evidence.max(0.0);
    (e / (e + scale.max(1e-9))).min(0.999_999)
}

impl Default for Params {
    fn default() -> Self {
        Self {
            k1: 1.2,
            weights: [3.0, 1.5, 2.0, 1.0, 0.2],
            b: [0.3, 0.3, 0.5, 0.75, 0.75],
            typo_weight: 0.6,
            lexicon_weight: 0.8,
            abstain_coverage: 0.5,
            unknown_weight: 0.25,
            abstain_confidence: 0.23,
            confidence_scale: 1.0,
            clause_weight: 0.4,
            synonym_weight: 0.3,
            generic_name_weight: 1.0,
            quote_weight: 0.3,
            unigram_weight: 0.7,
            crowd_gap: 0.0,
            crowd_weight: CROWD_RULE.1,
            crowd_confidence: CROWD_RULE.2,
            crowd_coverage: CROWD_RULE.3,
        }
    }
}
