//! `yomi battle analyze` through the real binary: the CLI and `agent.call("analyze")` return the
//! same object bit for bit, and the solved table is kept on disk in the data directory, keyed by
//! the rules, with a damaged file rebuilt rather than read.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};
use yomi_e2e::{run_yomi, temp_dir, Server};

fn analyze_cli(data: &Path, args: &[&str]) -> Value {
    let data = data.to_str().expect("UTF-8 path");
    let out: Output =
        run_yomi(&[&["--data-dir", data, "battle", "analyze", "--json"], args].concat());
    assert!(
        out.status.success(),
        "analyze {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn tables(data: &Path) -> Vec<PathBuf> {
    let dir = data.join("battle").join("tables");
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "table"));
    files.sort();
    files
}

/// Every f64 in `v`, in document order, as bits.
fn float_bits(v: &Value, out: &mut Vec<u64>) {
    match v {
        Value::Number(n) => out.extend(n.as_f64().map(f64::to_bits)),
        Value::Array(a) => a.iter().for_each(|x| float_bits(x, out)),
        Value::Object(o) => o.values().for_each(|x| float_bits(x, out)),
        _ => {}
    }
}

/// Positions over every pair of actives, several HP spreads and turns, including the one where a
/// last digit used to be lost (A,E at 5,2,5,5,3,1, turn 12).
fn positions() -> Vec<(String, [u64; 6], u64)> {
    let hps = [[5, 5, 5, 5, 4, 4], [5, 2, 5, 5, 3, 1], [1, 4, 2, 3, 1, 2], [2, 5, 1, 4, 4, 3]];
    let mut out = Vec::new();
    for (k, hp) in hps.iter().enumerate() {
        for (i, a) in ["A", "B", "C"].iter().enumerate() {
            for (j, b) in ["D", "E", "F"].iter().enumerate() {
                let turn = [1, 5, 12, 18][(k + i + j) % 4];
                out.push((format!("{a},{b}"), *hp, turn));
            }
        }
    }
    out
}

#[test]
fn cli_analyze_and_agent_call_return_the_same_floats_bit_for_bit() {
    let data = temp_dir();
    let dir = data.path().to_str().unwrap().to_string();
    let mut server = Server::stdio(&["--data-dir", &dir]);
    let conn = server.conn();
    let agent = conn.ok("agent.new", json!({"bot": "battle/nash", "seed": 1}))["agent"]
        .as_str()
        .unwrap()
        .to_string();
    let positions = positions();
    assert!(positions.len() >= 36);
    for (active, hp, turn) in &positions {
        let hp_list = hp.map(|h| h.to_string()).join(",");
        let cli = analyze_cli(
            data.path(),
            &["--active", active, "--hp", &hp_list, "--turn", &turn.to_string()],
        );
        let call = conn.ok(
            "agent.call",
            json!({"agent": agent, "method": "analyze",
                   "params": {"active": active, "hp": hp, "turn": turn}}),
        );
        let (mut a, mut b) = (Vec::new(), Vec::new());
        float_bits(&cli, &mut a);
        float_bits(&call, &mut b);
        assert!(a.len() >= 30, "{active} {hp:?} turn {turn}: a matrix and strategies: {cli}");
        assert_eq!(a, b, "{active} {hp:?} turn {turn}:\ncli  {cli}\ncall {call}");
        assert_eq!(cli, call);
    }
    // The server and the CLI share the data directory: one table for the one rule set.
    assert_eq!(tables(data.path()).len(), 1);
}

#[test]
fn the_table_is_stored_per_rule_set_and_a_damaged_one_is_rebuilt() {
    let data = temp_dir();
    let args = ["--active", "A,E", "--hp", "5,2,5,5,3,1", "--turn", "12"];
    let first = analyze_cli(data.path(), &args);
    let files = tables(data.path());
    assert_eq!(files.len(), 1, "the first analyze stores its table");
    let stored = std::fs::read(&files[0]).unwrap();
    assert!(stored.len() > 20_000_000, "the whole thesis table: {} bytes", stored.len());

    // Read back from disk: the same answer.
    assert_eq!(analyze_cli(data.path(), &args), first);

    // A damaged file (one flipped bit, then a truncated one) is detected, not read, and rewritten.
    let mut damaged = stored.clone();
    damaged[stored.len() / 2] ^= 0x40;
    std::fs::write(&files[0], &damaged).unwrap();
    assert_eq!(analyze_cli(data.path(), &args), first);
    assert_eq!(std::fs::read(&files[0]).unwrap(), stored, "the damaged table is rebuilt");
    std::fs::write(&files[0], &stored[..1000]).unwrap();
    assert_eq!(analyze_cli(data.path(), &args), first);
    assert_eq!(std::fs::read(&files[0]).unwrap(), stored);

    // Changed rules get their own table rather than the stored one.
    let neutral = analyze_cli(data.path(), &[&args[..], &["--same-type-neutral"]].concat());
    assert_eq!(tables(data.path()).len(), 2);
    assert_ne!(neutral["matrix"], first["matrix"], "same-type-neutral damage changes the game");
    assert_eq!(analyze_cli(data.path(), &args), first);
}
