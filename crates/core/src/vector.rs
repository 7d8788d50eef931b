//! A per-tool vector store for the semantic channel: one int8-quantized, L2-normalized vector per
//! tool name, incremental upsert and remove by name, and brute-force top-k by dot product
//! (cosine similarity), parallel with rayon above [`PARALLEL_MIN`] vectors.
//!
//! Quantization: each vector is normalized, then scaled by `127 / max|x|` and rounded to `i8`;
//! its scale is kept as an `f32`. A query is quantized the same way, so a score is an integer
//! dot product times two scales. For 384-dimensional MiniLM vectors the cosine error is about
//! 1e-3, far below the gaps that decide a ranking; memory is `dim + 4` bytes a tool.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::error::{ErrorCode, IndexError};

/// Largest accepted dimension.
pub const MAX_DIM: usize = 8192;

/// From this many stored vectors on, a search scores in parallel.
pub const PARALLEL_MIN: usize = 8192;

/// One search result: the tool name and its cosine similarity to the query (about -1..1).
#[derive(Debug, Clone, PartialEq)]
pub struct VectorHit {
    pub name: String,
    pub score: f32,
}

/// The quantized vectors of a set of tools, keyed by name. Slots of removed tools are reused.
#[derive(Debug, Clone)]
pub struct VectorStore {
    dim: usize,
    names: Vec<Option<String>>,
    slot_of: FxHashMap<String, usize>,
    codes: Vec<i8>,
    scales: Vec<f32>,
    free: Vec<usize>,
}

/// Quantize `v` (any length, finite) after L2 normalization: codes and the scale that maps them
/// back. A zero vector gets zero codes and scale 0.
fn quantize(v: &[f32], out: &mut [i8]) -> f32 {
    // In f64: the squares of floats near f32::MAX (or below 1e-19) would overflow (underflow)
    // f32 and turn a real direction into a zero vector.
    let norm = v
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt();
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if norm == 0.0 || max == 0.0 {
        out.iter_mut().for_each(|c| *c = 0);
        return 0.0;
    }
    let k = 127.0 / f64::from(max);
    for (c, &x) in out.iter_mut().zip(v) {
        *c = (f64::from(x) * k).round().clamp(-127.0, 127.0) as i8;
    }
    // code * scale = x / norm
    (f64::from(max) / (127.0 * norm)) as f32
}

fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum()
}

impl VectorStore {
    /// An estimate of the heap bytes the store holds (what the binding reports to the
    /// JavaScript engine as external memory).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let names: usize = self.names.iter().flatten().map(|n| n.capacity()).sum();
        names * 2
            + self.names.capacity() * size_of::<Option<String>>()
            + self.slot_of.capacity() * (size_of::<(String, usize)>() + 1)
            + self.codes.capacity()
            + self.scales.capacity() * size_of::<f32>()
            + self.free.capacity() * size_of::<usize>()
    }

    /// An empty store of `dim`-float vectors.
    pub fn new(dim: usize) -> Result<Self, IndexError> {
        if dim == 0 || dim > MAX_DIM {
            return Err(IndexError::new(
                ErrorCode::InvalidArg,
                format!("vector dimension must be 1..={MAX_DIM}, got {dim}"),
            ));
        }
        Ok(Self {
            dim,
            names: Vec::new(),
            slot_of: FxHashMap::default(),
            codes: Vec::new(),
            scales: Vec::new(),
            free: Vec::new(),
        })
    }

    /// The vector length.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of tools stored.
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    /// True when no tool is stored.
    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }

    /// True when `name` has a vector.
    pub fn contains(&self, name: &str) -> bool {
        self.slot_of.contains_key(name)
    }

    /// Names stored, in slot order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().filter_map(|n| n.as_deref())
    }

    fn check(&self, v: &[f32], what: &str) -> Result<(), IndexError> {
        if v.len() != self.dim {
            return Err(IndexError::new(
                ErrorCode::InvalidArg,
                format!(
                    "{what} has {} floats, the store holds {}",
                    v.len(),
                    self.dim
                ),
            ));
        }
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(IndexError::new(
                ErrorCode::InvalidNumber,
                format!("{what}[{i}] is not a finite number"),
            ));
        }
        Ok(())
    }

    /// Insert or replace the vector of `name` (normalized, then quantized).
    pub fn upsert(&mut self, name: &str, v: &[f32]) -> Result<(), IndexError> {
        self.check(v, "vector")?;
        let slot = match self.slot_of.get(name) {
            Some(&s) => s,
            None => {
                let s = match self.free.pop() {
                    Some(s) => s,
                    None => {
                        self.names.push(None);
                        self.scales.push(0.0);
                        self.codes.resize(self.codes.len() + self.dim, 0);
                        self.names.len() - 1
                    }
                };
                self.names[s] = Some(name.to_string());
                self.slot_of.insert(name.to_string(), s);
                s
            }
        };
        let d = self.dim;
        self.scales[slot] = quantize(v, &mut self.codes[slot * d..(slot + 1) * d]);
        Ok(())
    }

    /// Remove the vector of `name`; false when it had none.
    pub fn remove(&mut self, name: &str) -> bool {
        match self.slot_of.remove(name) {
            Some(s) => {
                self.names[s] = None;
                self.scales[s] = 0.0;
                self.codes[s * self.dim..(s + 1) * self.dim]
                    .iter_mut()
                    .for_each(|c| *c = 0);
                self.free.push(s);
                true
            }
            None => false,
        }
    }

    /// Remove every vector (and give back the tables' memory).
    pub fn clear(&mut self) {
        *self = Self::new(self.dim).expect("dimension already validated");
    }

    /// The stored (dequantized, unit-length) vector of `name`.
    pub fn get(&self, name: &str) -> Option<Vec<f32>> {
        let &s = self.slot_of.get(name)?;
        let sc = self.scales[s];
        Some(
            self.codes[s * self.dim..(s + 1) * self.dim]
                .iter()
                .map(|&c| f32::from(c) * sc)
                .collect(),
        )
    }

    /// Cosine similarity of the query to every stored tool: `(slot order name, score)`.
    pub fn score_all(&self, query: &[f32]) -> Result<Vec<VectorHit>, IndexError> {
        let scores = self.scores(query)?;
        Ok(scores
            .into_iter()
            .enumerate()
            .filter_map(|(s, sc)| {
                self.names[s].as_ref().map(|n| VectorHit {
                    name: n.clone(),
                    score: sc,
                })
            })
            .collect())
    }

    fn scores(&self, query: &[f32]) -> Result<Vec<f32>, IndexError> {
        self.check(query, "query vector")?;
        let mut q = vec![0i8; self.dim];
        let qs = quantize(query, &mut q);
        let d = self.dim;
        let score = |s: usize| -> f32 {
            if self.names[s].is_none() {
                return f32::NEG_INFINITY;
            }
            dot_i8(&q, &self.codes[s * d..(s + 1) * d]) as f32 * qs * self.scales[s]
        };
        let n = self.names.len();
        Ok(if n >= PARALLEL_MIN {
            (0..n).into_par_iter().map(score).collect()
        } else {
            (0..n).map(score).collect()
        })
    }

    /// The `k` tools most similar to `query`, best first; ties by slot order (insertion order).
    pub fn search(&self, query: &[f32], k: usize) -> Result<Vec<VectorHit>, IndexError> {
        let scores = self.scores(query)?;
        let mut idx: Vec<usize> = (0..scores.len())
            .filter(|&s| self.names[s].is_some())
            .collect();
        let by = |a: &usize, b: &usize| scores[*b].total_cmp(&scores[*a]).then(a.cmp(b));
        if k < idx.len() {
            if k == 0 {
                return Ok(Vec::new());
            }
            idx.select_nth_unstable_by(k - 1, by);
            idx.truncate(k);
        }
        idx.sort_by(by);
        Ok(idx
            .into_iter()
            .map(|s| VectorHit {
                name: self.names[s].clone().unwrap_or_default(),
                score: scores[s],
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    /// A deterministic pseudo-random vector (xorshift).
    fn rnd(seed: u64, dim: usize) -> Vec<f32> {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..dim)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) as f32
            })
            .collect()
    }

    #[test]
    fn extreme_magnitudes_keep_their_direction() {
        let dim = 16;
        let base: Vec<Vec<f32>> = (0..8).map(|i| rnd(i + 1, dim)).collect();
        let query = rnd(99, dim);
        let ranking = |scale: f32| {
            let mut s = VectorStore::new(dim).unwrap();
            for (i, v) in base.iter().enumerate() {
                let scaled: Vec<f32> = v.iter().map(|x| x * scale).collect();
                s.upsert(&format!("t{i}"), &scaled).unwrap();
            }
            let q: Vec<f32> = query.iter().map(|x| x * scale).collect();
            s.search(&q, 8)
                .unwrap()
                .into_iter()
                .map(|h| h.name)
                .collect::<Vec<_>>()
        };
        let normal = ranking(1.0);
        for scale in [1e38f32, 1e-30, 1e-40] {
            assert_eq!(ranking(scale), normal, "scale {scale}");
        }
    }

    #[test]
    fn rejects_bad_dims_and_numbers() {
        assert_eq!(VectorStore::new(0).unwrap_err().code, ErrorCode::InvalidArg);
        let mut s = VectorStore::new(3).unwrap();
        assert_eq!(
            s.upsert("a", &[1.0, 2.0]).unwrap_err().code,
            ErrorCode::InvalidArg
        );
        assert_eq!(
            s.upsert("a", &[1.0, f32::NAN, 0.0]).unwrap_err().code,
            ErrorCode::InvalidNumber
        );
        assert_eq!(s.search(&[1.0], 3).unwrap_err().code, ErrorCode::InvalidArg);
        assert!(s.is_empty());
    }

    #[test]
    fn cosine_close_to_exact_and_order_kept() {
        let dim = 384;
        let mut s = VectorStore::new(dim).unwrap();
        let vs: Vec<Vec<f32>> = (0..200).map(|i| unit(&rnd(i, dim))).collect();
        for (i, v) in vs.iter().enumerate() {
            s.upsert(&format!("t{i}"), v).unwrap();
        }
        let q = unit(&rnd(999, dim));
        let exact: Vec<f32> = vs
            .iter()
            .map(|v| v.iter().zip(&q).map(|(a, b)| a * b).sum())
            .collect();
        for h in s.score_all(&q).unwrap() {
            let i: usize = h.name[1..].parse().unwrap();
            assert!(
                (h.score - exact[i]).abs() < 0.01,
                "{} vs {}",
                h.score,
                exact[i]
            );
        }
        // Query equal to a stored vector: that tool first, with a score near 1.
        let top = s.search(&vs[17], 3).unwrap();
        assert_eq!(top[0].name, "t17");
        assert!(top[0].score > 0.99);
        assert!(top.windows(2).all(|w| w[0].score >= w[1].score));
    }

    #[test]
    fn incremental_upsert_remove_reuse() {
        let mut s = VectorStore::new(2).unwrap();
        s.upsert("a", &[1.0, 0.0]).unwrap();
        s.upsert("b", &[0.0, 1.0]).unwrap();
        assert_eq!(s.search(&[1.0, 0.1], 1).unwrap()[0].name, "a");
        s.upsert("a", &[-1.0, 0.0]).unwrap(); // replaced in place
        assert_eq!(s.len(), 2);
        assert_eq!(s.search(&[1.0, 0.1], 1).unwrap()[0].name, "b");
        assert!(s.remove("a"));
        assert!(!s.remove("a"));
        assert_eq!(s.search(&[1.0, 0.0], 5).unwrap().len(), 1);
        s.upsert("c", &[1.0, 1.0]).unwrap(); // reuses a's slot
        assert_eq!(s.names().collect::<Vec<_>>(), vec!["c", "b"]);
        let g = s.get("c").unwrap();
        assert!((g[0] - std::f32::consts::FRAC_1_SQRT_2).abs() < 0.01);
        assert!(s.search(&[1.0, 0.0], 0).unwrap().is_empty());
        s.clear();
        assert!(s.is_empty());
    }

    #[test]
    fn zero_vectors_score_zero_and_ties_follow_insertion() {
        let mut s = VectorStore::new(2).unwrap();
        s.upsert("z", &[0.0, 0.0]).unwrap();
        s.upsert("y", &[0.0, 0.0]).unwrap();
        let hits = s.search(&[1.0, 0.0], 2).unwrap();
        assert_eq!(
            hits.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(),
            vec!["z", "y"]
        );
        assert_eq!(hits[0].score, 0.0);
    }

    #[test]
    fn parallel_path_matches_serial() {
        let dim = 8;
        let mut s = VectorStore::new(dim).unwrap();
        for i in 0..(PARALLEL_MIN as u64 + 10) {
            s.upsert(&format!("t{i}"), &rnd(i, dim)).unwrap();
        }
        let q = rnd(7, dim);
        let top = s.search(&q, 10).unwrap();
        let mut all = s.score_all(&q).unwrap();
        all.sort_by(|a, b| b.score.total_cmp(&a.score));
        assert_eq!(top[0].score, all[0].score);
        assert_eq!(top.len(), 10);
    }
}
