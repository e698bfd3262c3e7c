//! Plain-text rendering of service results for people at a terminal; `--json` skips this.

use serde_json::Value;

fn pairs(map: &Value) -> String {
    map.as_object()
        .map(|m| {
            m.iter()
                .map(|(p, r)| format!("{p}={}", r.as_str().unwrap_or_default()))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn names(list: &Value) -> String {
    list.as_array()
        .map(|l| l.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "))
        .unwrap_or_default()
}

fn interval(ci: &Value) -> String {
    match ci.as_array() {
        Some(b) if b.len() == 2 => format!(
            " (95 % CI {:.4} to {:.4})",
            b[0].as_f64().unwrap_or(f64::NAN),
            b[1].as_f64().unwrap_or(f64::NAN)
        ),
        _ => String::new(),
    }
}

/// Renders the result of `method` as lines of text.
pub fn text(method: &str, r: &Value) -> String {
    let s = |k: &str| r[k].as_str().map(str::to_string).unwrap_or_else(|| r[k].to_string());
    match method {
        "sample" => {
            r.as_array().map(|a| a.iter().map(|x| pairs(x) + "\n").collect()).unwrap_or_default()
        }
        "groups" => r["groups"]
            .as_array()
            .map(|g| g.iter().filter_map(Value::as_str).map(|g| format!("{g}\n")).collect())
            .unwrap_or_default(),
        "create" => format!(
            "group {}: {}\nkey: {} (clients reach the group with it)\n",
            s("group"),
            names(&r["players"]),
            s("key")
        ),
        "join" | "leave" => format!("group {}: {}\n", s("group"), names(&r["players"])),
        "players" => format!(
            "group {}: {}\ncommitted games: {}; pending game: {}\n",
            s("group"),
            names(&r["players"]),
            r["games"],
            if r["pending"].is_null() { "none".to_string() } else { r["pending"].to_string() }
        ),
        "assign" => {
            let mut out = format!("group {} game {} (beta {}, sampler {}, seed {}): pending until commit or discard\n", s("group"), r["game"], r["beta"], s("sampler"), r["seed"]);
            if let Some(m) = r["assignment"].as_object() {
                m.iter().for_each(|(p, role)| {
                    out.push_str(&format!("  {p}: {}\n", role.as_str().unwrap_or_default()))
                });
            }
            out
        }
        "role" => format!("{}: {}\n", s("player"), s("role")),
        "commit" | "discard" => format!("game {} of the group is {}\n", r["game"], s("status")),
        "history" => {
            let mut out = String::new();
            for g in r["games"].as_array().into_iter().flatten() {
                out.push_str(&format!("game {}: {}\n", g["game"], pairs(&g["assignment"])));
            }
            out.push_str("role counts:\n");
            for (p, counts) in r["counts"].as_object().into_iter().flatten() {
                let c = counts
                    .as_object()
                    .map(|c| {
                        c.iter()
                            .map(|(role, n)| format!("{role} {n}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
                out.push_str(&format!("  {p}: {c}\n"));
            }
            out
        }
        "analyze" => {
            let mut out = format!("beta {}\nP(role) next game:\n", r["beta"]);
            for (p, row) in r["probabilities"].as_object().into_iter().flatten() {
                let cells = row
                    .as_object()
                    .map(|c| {
                        c.iter()
                            .map(|(role, x)| {
                                format!("{role} {:.4}", x.as_f64().unwrap_or(f64::NAN))
                            })
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
                out.push_str(&format!("  {p}: {cells}\n"));
            }
            let g = &r["guessability"];
            out.push_str(&format!(
                "guessability: {} is the {} with probability {:.4} (uniform dealing: {:.4})\n",
                g["player"].as_str().unwrap_or_default(),
                g["role"].as_str().unwrap_or_default(),
                g["probability"].as_f64().unwrap_or(f64::NAN),
                g["uniform"].as_f64().unwrap_or(f64::NAN)
            ));
            let n = &r["never"];
            out.push_str(&format!(
                "P(someone is never {} within {} games) = {:.4}{} [{}, n = {}]\nmean guessability over those games = {:.4}{}\n",
                n["role"].as_str().unwrap_or_default(),
                n["games"],
                n["probability"].as_f64().unwrap_or(f64::NAN),
                interval(&n["ci95"]),
                n["method"].as_str().unwrap_or_default(),
                n["n"],
                n["mean_guessability"].as_f64().unwrap_or(f64::NAN),
                interval(&n["mean_guessability_ci95"])
            ));
            out
        }
        _ => format!("{r:#}\n"),
    }
}
