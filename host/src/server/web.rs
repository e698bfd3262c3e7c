//! The playground's files, embedded in the binary so `yomi serve --http` needs nothing else (no
//! install step, no CDN, works offline). The page speaks to `/ws` through the JavaScript client
//! library of `clients/js`, served from here as `/yomi.js`. Each game's board, and each service's
//! tab, comes from its plugin: a view module the plugin's manifest carries, served at
//! [`plugin_view_path`](crate::runtime::url::plugin_view_path).

/// One embedded file.
pub struct File {
    pub content_type: &'static str,
    pub body: &'static str,
}

const HTML: &str = "text/html; charset=utf-8";
pub const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// The files by their path under `/`.
const FILES: &[(&str, File)] = &[
    ("index.html", File { content_type: HTML, body: include_str!("../../web/index.html") }),
    ("style.css", File { content_type: CSS, body: include_str!("../../web/style.css") }),
    ("app.js", File { content_type: JS, body: include_str!("../../web/app.js") }),
    ("views.js", File { content_type: JS, body: include_str!("../../web/views.js") }),
    ("kit.js", File { content_type: JS, body: include_str!("../../web/kit.js") }),
    ("plugins.js", File { content_type: JS, body: include_str!("../../web/plugins.js") }),
    ("page.js", File { content_type: JS, body: include_str!("../../web/page.js") }),
    ("play.js", File { content_type: JS, body: include_str!("../../web/play.js") }),
    ("services.js", File { content_type: JS, body: include_str!("../../web/services.js") }),
    ("tournament.js", File { content_type: JS, body: include_str!("../../web/tournament.js") }),
    ("tables.js", File { content_type: JS, body: include_str!("../../web/tables.js") }),
    ("replay.js", File { content_type: JS, body: include_str!("../../web/replay.js") }),
    ("yomi.js", File { content_type: JS, body: include_str!("../../../clients/js/src/yomi.js") }),
];

/// The embedded file at `path` (relative to `/`), if there is one.
pub fn file(path: &str) -> Option<&'static File> {
    FILES.iter().find(|(name, _)| *name == path).map(|(_, file)| file)
}
