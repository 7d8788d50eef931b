//! A bilingual lexicon of tool vocabulary, Chinese → English, applied to queries so a
//! Chinese request finds English-described tools (`发送消息` → send message).
//!
//! Entries are common verbs and objects of tool descriptions; a query's CJK text is matched
//! against all keys in one pass (an Aho-Corasick automaton, leftmost-longest, non-overlapping)
//! and each hit adds the English words, at a reduced weight, to the query. The list is ours
//! (about 350 words of what tools do and work on: actions, files and data, messages, money,
//! travel, media, places, health, work); it is a vocabulary bridge, not a translator.

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
    ("预约", "book appointment schedule"),
    ("订购", "order purchase"),
    ("购买", "buy purchase"),
    ("出售", "sell"),
    ("浏览", "browse"),
    ("播放", "play"),
    ("暂停", "pause"),
    ("录制", "record"),
    ("记录", "record log"),
    ("统计", "statistics count"),
    ("排序", "sort"),
    ("过滤", "filter"),
    ("筛选", "filter"),
    ("替换", "replace"),
    ("重置", "reset"),
    ("恢复", "restore"),
    ("备份", "backup"),
    ("同步", "sync"),
    ("分享", "share"),
    ("邀请", "invite"),
    ("回复", "reply"),
    ("转发", "forward"),
    ("打印", "print"),
    ("扫描", "scan"),
    ("识别", "recognize detect"),
    ("检测", "detect"),
    ("验证", "verify validate"),
    ("授权", "authorize"),
    ("注册", "register"),
    ("退出", "logout exit"),
    ("连接", "connect connection"),
    ("配置", "configure config"),
    ("设置", "set settings"),
    ("压缩", "compress"),
    ("解压", "decompress extract"),
    ("加密", "encrypt"),
    ("解密", "decrypt"),
    ("编码", "encode"),
    ("解码", "decode"),
    ("格式化", "format"),
    ("渲染", "render"),
    ("绘制", "draw plot"),
    ("预测", "predict forecast"),
    ("推荐", "recommend"),
    ("规划", "plan"),
    ("导航", "navigate directions"),
    ("追踪", "track"),
    ("跟踪", "track"),
    ("估算", "estimate"),
    ("评估", "evaluate"),
    ("审核", "review"),
    ("批准", "approve"),
    ("拒绝", "reject"),
    ("分配", "assign"),
    ("归档", "archive"),
    ("标记", "mark"),
    ("收藏", "favorite bookmark"),
    ("关注", "follow"),
    ("充值", "top up"),
    ("退款", "refund"),
    ("兑换", "exchange convert"),
    ("换算", "convert"),
    ("发货", "ship shipment"),
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
    ("航班", "flight"),
    ("机票", "flight ticket"),
    ("酒店", "hotel"),
    ("餐厅", "restaurant"),
    ("餐馆", "restaurant"),
    ("外卖", "food delivery"),
    ("食谱", "recipe"),
    ("菜谱", "recipe"),
    ("电影", "movie film"),
    ("歌曲", "song"),
    ("歌词", "lyrics"),
    ("播放列表", "playlist"),
    ("专辑", "album"),
    ("书籍", "book"),
    ("新闻", "news"),
    ("文章", "article"),
    ("博客", "blog"),
    ("推文", "tweet"),
    ("帖子", "post"),
    ("汇率", "exchange rate currency"),
    ("货币", "currency"),
    ("美元", "dollar usd"),
    ("欧元", "euro eur"),
    ("人民币", "yuan cny"),
    ("比特币", "bitcoin btc"),
    ("加密货币", "crypto cryptocurrency"),
    ("基金", "fund"),
    ("账户", "account"),
    ("账号", "account"),
    ("客户", "customer client"),
    ("员工", "employee"),
    ("项目", "project"),
    ("产品", "product"),
    ("商品", "product item"),
    ("库存", "inventory stock"),
    ("快递", "shipping delivery package"),
    ("物流", "shipping logistics"),
    ("包裹", "package parcel"),
    ("账单", "bill invoice"),
    ("报告", "report"),
    ("报表", "report"),
    ("图表", "chart"),
    ("幻灯片", "slide presentation"),
    ("演示文稿", "presentation"),
    ("电子表格", "spreadsheet"),
    ("工作表", "sheet worksheet"),
    ("单元格", "cell"),
    ("数据", "data"),
    ("字段", "field"),
    ("接口", "api endpoint"),
    ("服务器", "server"),
    ("容器", "container"),
    ("镜像", "image"),
    ("集群", "cluster"),
    ("虚拟机", "vm virtual machine"),
    ("域名", "domain dns"),
    ("证书", "certificate"),
    ("密钥", "key secret"),
    ("令牌", "token"),
    ("权限", "permission"),
    ("角色", "role"),
    ("团队", "team"),
    ("组织", "organization"),
    ("成员", "member"),
    ("群组", "group"),
    ("聊天", "chat"),
    ("对话", "conversation chat"),
    ("短信", "sms text message"),
    ("电话", "phone call"),
    ("语音", "voice audio"),
    ("音频", "audio"),
    ("字幕", "subtitle caption"),
    ("照片", "photo"),
    ("相册", "album photo"),
    ("二维码", "qr code"),
    ("条形码", "barcode"),
    ("单词", "word"),
    ("词典", "dictionary"),
    ("字典", "dictionary"),
    ("定义", "definition define"),
    ("城市", "city"),
    ("国家", "country"),
    ("温度", "temperature"),
    ("空气质量", "air quality"),
    ("下雨", "rain"),
    ("降雨", "rain precipitation"),
    ("预报", "forecast"),
    ("地震", "earthquake"),
    ("路线", "route directions"),
    ("距离", "distance"),
    ("交通", "traffic transit"),
    ("公交", "bus transit"),
    ("火车", "train"),
    ("停车", "parking"),
    ("附近", "nearby"),
    ("景点", "attraction"),
    ("旅行", "travel trip"),
    ("旅游", "travel tourism"),
    ("签证", "visa"),
    ("健康", "health"),
    ("运动", "exercise workout sport"),
    ("食物", "food"),
    ("营养", "nutrition"),
    ("卡路里", "calorie"),
    ("热量", "calorie"),
    ("药物", "drug medication"),
    ("药品", "drug medicine"),
    ("医生", "doctor"),
    ("症状", "symptom"),
    ("体育", "sports"),
    ("比赛", "match game"),
    ("比分", "score"),
    ("球队", "team"),
    ("游戏", "game"),
    ("职位", "job position"),
    ("简历", "resume"),
    ("招聘", "hiring job"),
    ("课程", "course"),
    ("考试", "exam test"),
    ("数学", "math"),
    ("公式", "formula"),
    ("方程", "equation"),
    ("单位", "unit"),
    ("网络", "network"),
    ("搜索引擎", "search engine"),
    ("网址", "url"),
    ("页面", "page"),
    ("拼写", "spelling spell"),
    ("语法", "grammar"),
    ("情感", "sentiment"),
    ("摘要", "summary"),
    ("关键词", "keyword"),
    ("主题", "topic theme"),
    ("分类", "category classify"),
    ("标题", "title"),
    ("描述", "description"),
    ("内容", "content"),
    ("评分", "rating score"),
    ("评价", "review rating"),
    ("问卷", "survey"),
    ("投票", "vote poll"),
    ("随机", "random"),
    ("彩票", "lottery"),
    ("星座", "horoscope zodiac"),
    ("笑话", "joke"),
    ("名言", "quote"),
    ("节日", "holiday"),
    ("假期", "holiday vacation"),
    ("生日", "birthday"),
    ("活动", "event activity"),
    ("门票", "ticket"),
    ("座位", "seat"),
    ("房间", "room"),
    ("房产", "property real estate"),
    ("租房", "rent rental"),
    ("公寓", "apartment"),
    ("汽车", "car"),
    ("车辆", "vehicle"),
    ("保险", "insurance"),
    ("贷款", "loan"),
    ("税务", "tax"),
    ("利率", "interest rate"),
    ("报价", "quote price"),
    ("预算", "budget"),
    ("费用", "cost fee expense"),
    ("合同", "contract"),
    ("签名", "signature sign"),
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

/// The request with each lexicon key replaced by its English words and any other CJK text
/// dropped; text of other scripts is kept as it is (`在 GitHub 上创建 issue` → `GitHub create
/// issue`). A gloss an English sentence encoder can read.
pub fn gloss(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let keep = |piece: &str, out: &mut String| {
        for c in piece.chars() {
            out.push(if super::words::is_cjk(c) { ' ' } else { c });
        }
    };
    let mut at = 0;
    for m in matcher().find_iter(text) {
        keep(&text[at..m.start()], &mut out);
        out.push(' ');
        out.push_str(LEXICON[m.pattern().as_usize()].1);
        out.push(' ');
        at = m.end();
    }
    keep(&text[at..], &mut out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glosses_requests() {
        assert_eq!(
            gloss("帮我在 GitHub 上创建一个 issue"),
            "GitHub create issue"
        );
        assert_eq!(gloss("发送邮件给团队"), "send email mail team");
        assert_eq!(gloss("send an email"), "send an email");
        assert_eq!(gloss("你好"), "");
        assert_eq!(gloss(""), "");
    }

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
