//! Plain-text renderings of the catalog for people at a terminal.

use std::fmt::Write;

use serde_json::Value;

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// The catalog as an indented listing: games, then bots with their options and presets.
pub fn catalog_table(catalog: &Value) -> String {
    let mut out = String::new();
    let empty = vec![];
    let games = catalog["games"].as_array().unwrap_or(&empty);
    let bots = catalog["bots"].as_array().unwrap_or(&empty);
    let _ = writeln!(out, "GAMES");
    for g in games {
        let _ = writeln!(
            out,
            "  {:<14} {:<10} seats {}-{}{}  {}",
            s(&g["name"]),
            s(&g["plugin"]),
            g["min_seats"],
            g["max_seats"],
            if g["simultaneous"].as_bool() == Some(true) { ", simultaneous" } else { "" },
            s(&g["description"])
        );
    }
    let _ = writeln!(out, "\nBOTS");
    for b in bots {
        let plays: Vec<&str> = b["games"].as_array().unwrap_or(&empty).iter().map(s).collect();
        let role = if plays.is_empty() {
            "service".to_string()
        } else {
            format!("plays {}", plays.join(", "))
        };
        let _ = writeln!(out, "  {:<24} {}  — {}", s(&b["id"]), role, s(&b["description"]));
        for o in b["options"].as_array().unwrap_or(&empty) {
            let _ = writeln!(
                out,
                "      --{:<20} {:<7} default {:<10} {}{}",
                s(&o["name"]),
                s(&o["type"]),
                o["default"].to_string(), // a Value ignores widths; its text does not
                choices(o),
                s(&o["description"])
            );
        }
        for p in b["presets"].as_array().unwrap_or(&empty) {
            let elo = match (p["elo"].as_f64(), p["elo_ci95"].as_array()) {
                (Some(elo), Some(ci)) => format!(
                    " (Elo {elo:.0} [{:.0}, {:.0}])",
                    ci[0].as_f64().unwrap_or(elo),
                    ci[1].as_f64().unwrap_or(elo)
                ),
                _ => String::new(),
            };
            let _ =
                writeln!(out, "      preset {:<18} {}{elo}", s(&p["name"]), s(&p["description"]));
        }
        for m in b["methods"].as_array().unwrap_or(&empty) {
            let _ = writeln!(out, "      method {:<18} {}", s(&m["name"]), s(&m["description"]));
        }
    }
    out
}

/// A choice option's values, `one of: a | b | c; `, or nothing for other options.
fn choices(option: &Value) -> String {
    match option["choices"].as_array() {
        Some(values) if !values.is_empty() => {
            let names: Vec<&str> = values.iter().map(s).collect();
            format!("one of: {}; ", names.join(" | "))
        }
        _ => String::new(),
    }
}

/// Loaded plugins, one line each.
pub fn plugin_table(plugins: &[Value]) -> String {
    let mut out = String::new();
    for p in plugins {
        let _ = writeln!(
            out,
            "{:<10} {:<8} gen {} build {}  {}",
            s(&p["name"]),
            s(&p["version"]),
            p["generation"],
            s(&p["build"]),
            p["path"].as_str().unwrap_or("")
        );
    }
    out
}
