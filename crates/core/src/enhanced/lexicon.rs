//! A small bilingual lexicon of tool vocabulary, Chinese → English, applied to queries so a
//! Chinese request finds English-described tools (`发送消息` → send message).
//!
//! Entries are common verbs and objects of tool descriptions; a query's CJK text is matched
//! against all keys in one pass (an Aho-Corasick automaton, leftmost-longest, non-overlapping)
//! and each hit adds the English words, at a reduced weight, to the query. The list is ours and deliberately short: it is
//! a vocabulary bridge, not a translator.

use aho_corasick::{AhoCorasick, MatchKind};
use std::sync::OnceLock;

/// `(Chinese, English words)`.
pub const LEXICON: &[(&str, &str)] = &[
    // verbs
    ("发送", "send"),
    ("发布", "post publish"),
    ("创建", "create"),
    ("新建", "create new"),
    ("添加", "add"),
    ("删除", "delete remove"),
    ("移除", "remove"),
    ("取消", "cancel"),
    ("查询", "query search"),
    ("搜索", "search"),
    ("查找", "find search"),
    ("检索", "search retrieve"),
    ("获取", "get fetch"),
    ("读取", "read"),
    ("写入", "write"),
    ("编辑", "edit"),
    ("修改", "modify update edit"),
    ("更新", "update"),
    ("列出", "list"),
    ("列表", "list"),
    ("上传", "upload"),
    ("下载", "download"),
    ("打开", "open"),
    ("关闭", "close"),
    ("运行", "run"),
    ("执行", "execute run"),
    ("调用", "call invoke"),
    ("启动", "start launch"),
    ("停止", "stop"),
    ("转换", "convert"),
    ("解析", "parse"),
    ("提取", "extract"),
    ("翻译", "translate"),
    ("总结", "summarize"),
    ("分析", "analyze"),
    ("生成", "generate"),
    ("截图", "screenshot"),
    ("截屏", "screenshot"),
    ("抓取", "fetch scrape"),
    ("合并", "merge"),
    ("比较", "compare diff"),
    ("监控", "monitor"),
    ("订阅", "subscribe"),
    ("通知", "notify notification"),
    ("提醒", "remind reminder"),
    ("预订", "book reserve"),
    ("支付", "pay payment"),
    ("转账", "transfer"),
    ("部署", "deploy"),
    ("安装", "install"),
    ("登录", "login"),
    ("导出", "export"),
    ("导入", "import"),
    ("复制", "copy"),
    ("移动", "move"),
    ("重命名", "rename"),
    ("保存", "save"),
    ("计算", "calculate compute"),
    ("查看", "view show"),
    ("显示", "show display"),
    ("检查", "check inspect"),
    ("测试", "test"),
    ("提交", "commit submit"),
    ("推送", "push"),
    ("拉取", "pull"),
    ("合并请求", "pull request merge"),
    // objects
    ("文件", "file"),
    ("目录", "directory folder"),
    ("文件夹", "folder directory"),
    ("消息", "message"),
    ("邮件", "email mail"),
    ("频道", "channel"),
    ("用户", "user"),
    ("问题", "issue question"),
    ("仓库", "repository repo"),
    ("分支", "branch"),
    ("代码", "code"),
    ("函数", "function"),
    ("数据库", "database"),
    ("表格", "table spreadsheet"),
    ("图片", "image picture"),
    ("图像", "image"),
    ("视频", "video"),
    ("音乐", "music"),
    ("网页", "web page"),
    ("网站", "website site"),
    ("链接", "link url"),
    ("浏览器", "browser"),
    ("天气", "weather"),
    ("时间", "time"),
    ("时区", "timezone"),
    ("日期", "date"),
    ("日历", "calendar"),
    ("事件", "event"),
    ("任务", "task"),
    ("定时", "schedule cron"),
    ("计划", "plan schedule"),
    ("笔记", "note"),
    ("文档", "document doc"),
    ("价格", "price"),
    ("股票", "stock"),
    ("订单", "order"),
    ("发票", "invoice"),
    ("地图", "map"),
    ("地址", "address location"),
    ("位置", "location"),
    ("记忆", "memory"),
    ("知识图谱", "knowledge graph"),
    ("实体", "entity"),
    ("关系", "relation"),
    ("终端", "terminal"),
    ("命令", "command"),
    ("日志", "log"),
    ("密码", "password"),
    ("钱包", "wallet"),
    ("余额", "balance"),
    ("交易", "transaction trade"),
    ("评论", "comment"),
    ("标签", "label tag"),
    ("模型", "model"),
    ("会议", "meeting"),
    ("联系人", "contact"),
];

/// The lexicon's keys in one automaton, built on first use.
fn matcher() -> &'static AhoCorasick {
    static MATCHER: OnceLock<AhoCorasick> = OnceLock::new();
    MATCHER.get_or_init(|| {
        AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(LEXICON.iter().map(|(k, _)| k))
            .expect("the lexicon's keys build an automaton")
    })
}

/// English expansions of the lexicon keys found in `text`, in text order: one pass over the
/// text, taking at each position the longest key that starts there (leftmost-longest), each
/// stretch of text used once.
pub fn expand(text: &str) -> Vec<&'static str> {
    matcher()
        .find_iter(text)
        .flat_map(|m| LEXICON[m.pattern().as_usize()].1.split(' '))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_tool_vocabulary() {
        assert_eq!(expand("发送消息到频道"), vec!["send", "message", "channel"]);
        assert_eq!(
            expand("创建一个定时任务"),
            vec!["create", "schedule", "cron", "task"]
        );
        assert_eq!(expand("合并请求"), vec!["pull", "request", "merge"]);
        // The longest key at each position: 文件夹, not 文件 then nothing.
        assert_eq!(
            expand("列出文件夹里的文件"),
            vec!["list", "folder", "directory", "file"]
        );
        assert!(expand("").is_empty());
        assert!(expand("hello").is_empty());
    }

    #[test]
    fn keys_are_unique() {
        let mut keys: Vec<&str> = LEXICON.iter().map(|(k, _)| *k).collect();
        keys.sort_unstable();
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n);
    }
}
