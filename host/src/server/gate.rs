//! Who the HTTP listener answers, as Jupyter and code-server decide: requests named for a host
//! it serves (no DNS rebinding), WebSocket upgrades from its own pages (no cross-site
//! WebSockets), and the token, from the query string or the cookie the playground got for it.

use std::net::IpAddr;

use crate::runtime::url::percent_encode;

/// Whether a request's `Host` header names this server: a loopback name, any IP address (a
/// rebinding page's requests carry the attacker's name, never a bare address), or an
/// `--allow-host` name; any port.
pub fn host_allowed(host: Option<&str>, allowed: &[String]) -> bool {
    let Some(host) = host else { return false };
    let name = host_name(host);
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok()
        || allowed.iter().any(|a| a.eq_ignore_ascii_case(name))
}

/// The name in a `Host` header, without its port or an IPv6 address's brackets.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    host.rsplit_once(':').map_or(host, |(name, port)| {
        if port.bytes().all(|b| b.is_ascii_digit()) {
            name
        } else {
            host
        }
    })
}

/// Whether a WebSocket upgrade may go on: no `Origin` (not a browser), the page's own origin
/// (`http`, as this listener speaks, with the `Host` header's host and port), or an
/// `--allow-origin` (e.g. the `https://` origin of a proxy that terminates TLS in front).
pub fn origin_allowed(origin: Option<&str>, host: Option<&str>, allowed: &[String]) -> bool {
    let Some(origin) = origin else { return true };
    let origin = origin.trim_end_matches('/');
    if allowed.iter().any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(origin)) {
        return true;
    }
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("http") {
        return false;
    };
    host.is_some_and(|host| authority.eq_ignore_ascii_case(host))
}

/// The value of `name` in a query string, percent-decoded.
pub fn query_value(query: Option<&str>, name: &str) -> Option<String> {
    query?.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| percent_decode(value))
    })
}

/// The value of cookie `name` in a `Cookie` header, percent-decoded.
pub fn cookie_value(header: Option<&str>, name: &str) -> Option<String> {
    header?.split(';').find_map(|pair| {
        let (key, value) = pair.trim().split_once('=')?;
        (key == name).then(|| percent_decode(value))
    })
}

/// A `Set-Cookie` value holding `token` for this server's pages only: not readable by scripts,
/// not sent by other sites' pages.
pub fn token_cookie(name: &str, token: &str) -> String {
    format!("{name}={}; Path=/; HttpOnly; SameSite=Strict", percent_encode(token))
}

/// Decodes `%XX` escapes and `+` (a space in a query string); a bad escape stays as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_addresses_and_allowed_hosts_pass() {
        let allowed = ["yomi.example".to_string()];
        for host in ["localhost:8080", "127.0.0.1:8080", "[::1]:8080", "10.0.0.7", "YOMI.example"] {
            assert!(host_allowed(Some(host), &allowed), "{host}");
        }
        for host in ["evil.example:8080", "localhost.evil.example", "127.0.0.1.nip.io"] {
            assert!(!host_allowed(Some(host), &allowed), "{host}");
        }
        assert!(!host_allowed(None, &allowed));
    }

    #[test]
    fn only_the_pages_own_origin_and_allowed_ones_may_open_a_socket() {
        let host = Some("127.0.0.1:8080");
        let allowed = ["https://game.example".to_string()];
        assert!(origin_allowed(None, host, &allowed));
        assert!(origin_allowed(Some("http://127.0.0.1:8080"), host, &allowed));
        assert!(origin_allowed(Some("https://game.example/"), host, &allowed));
        let foreign = ["http://evil.example", "http://127.0.0.1:9999", "null", "file://"];
        // A page served over https is another origin than this plain-HTTP listener's own.
        for foreign in foreign.into_iter().chain(["https://127.0.0.1:8080", "ws://127.0.0.1:8080"])
        {
            assert!(!origin_allowed(Some(foreign), host, &allowed), "{foreign}");
        }
    }

    #[test]
    fn tokens_round_trip_through_cookies_and_queries() {
        let token = "a b;c=d%é";
        let cookie = token_cookie("yomi-token-8080", token);
        assert!(cookie.ends_with("; Path=/; HttpOnly; SameSite=Strict"), "{cookie}");
        let value = cookie.split(';').next().unwrap();
        let header = format!("other=1; {value}; more=2");
        assert_eq!(cookie_value(Some(&header), "yomi-token-8080").as_deref(), Some(token));
        assert_eq!(cookie_value(Some(&header), "yomi-token-9090"), None);
        assert_eq!(query_value(Some("x=1&token=ab%2Bc+d"), "token").as_deref(), Some("ab+c d"));
        assert_eq!(query_value(Some("tokens=1"), "token"), None);
    }
}
