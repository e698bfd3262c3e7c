//! Pieces of URLs the host makes: percent-encoding, and the path a plugin's view module is
//! served at (named in the catalog, served by the HTTP listener).

/// Escapes everything but unreserved characters, so any text is one path segment or a valid
/// cookie value.
pub fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Where the playground finds a plugin's view module (the plugin's name percent-encoded, so any
/// name makes one path segment).
pub fn plugin_view_path(plugin: &str) -> String {
    format!("/plugins/{}/view.js", percent_encode(plugin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plugin_name_makes_one_path_segment() {
        assert_eq!(plugin_view_path("stud"), "/plugins/stud/view.js");
        assert_eq!(plugin_view_path("a b/../c"), "/plugins/a%20b%2F..%2Fc/view.js");
    }
}
