//! The plugin's CLI: `yomi battle analyze ...`, `yomi battle solve ...`, `yomi battle first-move
//! ...` and `yomi repro battle`.
//! Returns the text to print; never writes to stdout itself.

use clap::{Args, Parser, Subcommand};
use serde::Serialize;
use serde_json::Value;
use yomi_plugin::typed::to_json;
use yomi_plugin::{CommandContext, ErrorCode, ErrorInfo};

use crate::analysis::{analyze, Analysis, Query};
use crate::cache;
use crate::engine::Engine;
use crate::payload::Action;
use crate::solver::Table;
use crate::usage;

/// `yomi battle ...`.
#[derive(Parser)]
#[command(name = "yomi battle", about = "The δ-Nash battler's analysis tools")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which rules: a party preset (thesis, delta-experiment) or inline JSON parties, and switches.
#[derive(Args)]
struct RulesArgs {
    /// thesis | delta-experiment | inline JSON `[[3 Pokémon],[3 Pokémon]]`
    #[arg(long, default_value = "thesis")]
    parties: String,
    /// Same-type moves at ×1.0 also get ×1.5 (spec U2 variant).
    #[arg(long)]
    same_type_neutral: bool,
    /// Turn at which an undecided game is judged.
    #[arg(long, default_value_t = 20)]
    turn_limit: u64,
}

#[derive(Subcommand)]
enum Command {
    /// The true win-rate matrix, both Nash strategies and the value of one position.
    Analyze {
        #[command(flatten)]
        rules: RulesArgs,
        /// Party 1's and party 2's active Pokémon, e.g. A,D.
        #[arg(long)]
        active: String,
        /// The six HP values in party order, e.g. 5,5,5,5,4,4 (default: full).
        #[arg(long)]
        hp: Option<String>,
        /// The turn (1-based).
        #[arg(long, default_value_t = 1)]
        turn: u64,
        #[arg(long)]
        json: bool,
    },
    /// Solves every position by backward induction and reports the count, wall and CPU time.
    Solve {
        #[command(flatten)]
        rules: RulesArgs,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Also time the plain memoised recursion (`reference.rs`) from the nine starts, on one
        /// thread, and report the table's time as a fraction of it.
        #[arg(long)]
        reference: bool,
        #[arg(long)]
        json: bool,
    },
    /// Times the first δ-Nash decision after each of N new random party sets (the table is
    /// solved inside it), through the agent path a server uses.
    FirstMove {
        /// How many party sets (1 to 50).
        #[arg(long, default_value_t = 10)]
        sets: usize,
        /// Seed of the party sets.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Every Pokémon at HP 5 (the largest table) instead of HP drawn from 1 to 5.
        #[arg(long)]
        max_hp: bool,
        #[arg(long)]
        json: bool,
    },
    /// The paper's tables 5.1-6.2 and figures 6.1-6.2, ours beside the paper's.
    Repro(crate::repro::Args),
}

fn bad(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, message)
}

impl RulesArgs {
    fn parties(&self) -> Result<Value, ErrorInfo> {
        if self.parties.trim_start().starts_with('[') {
            serde_json::from_str(&self.parties)
                .map_err(|e| bad(format!("--parties is not valid JSON: {e}")))
        } else {
            Ok(Value::from(self.parties.clone()))
        }
    }

    fn query(&self, active: &str, hp: Option<&str>, turn: u64) -> Result<Query, ErrorInfo> {
        let hp = hp
            .map(|h| {
                h.split(',')
                    .map(|x| {
                        x.trim()
                            .parse::<u64>()
                            .map_err(|_| bad(format!("--hp: `{x}` is not a non-negative integer")))
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        Ok(Query {
            parties: self.parties()?,
            active: Value::from(active),
            hp,
            turn: Some(turn),
            same_type_neutral: self.same_type_neutral,
            turn_limit: Some(self.turn_limit),
        })
    }
}

/// Runs one CLI command; `analyze` keeps solved tables in the data directory when there is one.
pub fn run(cli: Cli, ctx: &CommandContext) -> Result<String, ErrorInfo> {
    let data_dir = ctx.data_dir.as_deref();
    match cli.command {
        Command::Analyze { rules, active, hp, turn, json } => {
            let query = rules.query(&active, hp.as_deref(), turn)?;
            let r = query.rules()?;
            let state = query.state(&r)?;
            let table = cache::table(&r, data_dir);
            let a = analyze(&table, &state)?;
            // The process exits after the command: a table solved for it is stored first.
            cache::wait_for_stores();
            Ok(if json { format!("{}\n", to_json(&a)) } else { text(&a) })
        }
        Command::Solve { rules, threads, reference, json } => {
            let r = rules.query("", None, 1).and_then(|q| q.rules())?;
            let threads = threads.unwrap_or_else(cache::threads).max(1);
            let cpu_before = usage::cpu_seconds();
            let table = Table::solve(Engine::new(r), threads);
            let cpu = usage::cpu_seconds().zip(cpu_before).map(|(b, a)| b - a);
            let reference = reference.then(|| {
                let (wall, ref_cpu, positions) = time_reference(&table.engine);
                Reference {
                    wall_seconds: wall,
                    cpu_seconds: ref_cpu,
                    positions,
                    table_cpu_fraction: cpu.zip(ref_cpu).map(|(t, r)| t / r),
                    table_wall_fraction: table.seconds / wall,
                }
            });
            let report = Solved {
                states_solved: table.solved,
                states_in_table: table.states(),
                wall_seconds: table.seconds,
                cpu_seconds: cpu,
                threads,
                table_bytes: table.bytes(),
                peak_rss_bytes: usage::peak_rss_bytes(),
                reference,
            };
            Ok(if json {
                format!("{}\n", to_json(&report))
            } else {
                let mut text = format!(
                    "solved {} positions in {:.3} s on {threads} threads ({} MB table)\n",
                    table.solved,
                    table.seconds,
                    table.bytes() / 1_000_000
                );
                if let Some(r) = &report.reference {
                    text.push_str(&format!(
                        "plain recursion: {:.3} s, {} positions; the table took {:.3} of its CPU time\n",
                        r.wall_seconds,
                        r.positions,
                        r.table_cpu_fraction.unwrap_or(f64::NAN),
                    ));
                }
                text
            })
        }
        Command::FirstMove { sets, seed, max_hp, json } => {
            let report = crate::first_move::measure(sets, seed, max_hp, data_dir)?;
            Ok(if json {
                format!("{}\n", to_json(&report))
            } else {
                format!(
                    "first decision after {sets} new party sets: median {:.1} ms, max {:.1} ms \
                     wall; {:.1} ms CPU per set\n",
                    report.median_wall_seconds * 1e3,
                    report.max_wall_seconds * 1e3,
                    report.cpu_seconds_per_set.unwrap_or(f64::NAN) * 1e3,
                )
            })
        }
        Command::Repro(args) => crate::repro::run(args),
    }
}

/// What `solve` measured: the table's solve, and the plain recursion's when asked.
#[derive(Serialize)]
struct Solved {
    states_solved: u64,
    states_in_table: usize,
    wall_seconds: f64,
    cpu_seconds: Option<f64>,
    threads: usize,
    table_bytes: usize,
    peak_rss_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reference: Option<Reference>,
}

/// The plain recursion's run beside the table's.
#[derive(Serialize)]
struct Reference {
    wall_seconds: f64,
    cpu_seconds: Option<f64>,
    positions: usize,
    table_cpu_fraction: Option<f64>,
    table_wall_fraction: f64,
}

/// The plain memoised recursion from the nine starting positions: wall seconds, CPU seconds and
/// the positions it solved.
fn time_reference(engine: &Engine) -> (f64, Option<f64>, usize) {
    let (start, cpu_before) = (std::time::Instant::now(), usage::cpu_seconds());
    let mut memo = crate::reference::Memo::new(engine);
    for a in 0..3u8 {
        for d in 0..3u8 {
            memo.value(&engine.initial([a, d]));
        }
    }
    let cpu = usage::cpu_seconds().zip(cpu_before).map(|(b, a)| b - a);
    (start.elapsed().as_secs_f64(), cpu, memo.positions())
}

/// The analysis as a table for people.
fn text(a: &Analysis) -> String {
    let name = |action: &Action| match action {
        Action::Move(m) => m.name().to_string(),
        Action::Switch(s) => format!("→{s}"),
    };
    let mut out = format!("value {:.4}\n{:>10} |", a.value, "");
    for c in &a.col_actions {
        out.push_str(&format!(" {:>8}", name(c)));
    }
    out.push_str(" |  p(row)\n");
    for (i, r) in a.row_actions.iter().enumerate() {
        out.push_str(&format!("{:>10} |", name(r)));
        for x in &a.matrix[i] {
            out.push_str(&format!(" {x:>8.4}"));
        }
        out.push_str(&format!(" | {:>7.4}\n", a.row_strategy[i]));
    }
    out.push_str(&format!("{:>10} |", "p(col)"));
    for x in &a.col_strategy {
        out.push_str(&format!(" {x:>8.4}"));
    }
    out.push('\n');
    out
}
