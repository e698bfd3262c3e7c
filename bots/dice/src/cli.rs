//! `yomi dice ...`: print natural sequences, score a sequence, compare plain and natural dice,
//! keep player profiles, run the sugoroku trap experiment, and `yomi repro dice`. The two
//! commands scripts rely on are stable: `sequence --length N --count K --json` and
//! `score --json F1 F2 ...`.

use std::collections::BTreeMap;

use clap::{Parser, Subcommand};
use serde::Serialize;
use serde_json::Value;
use yomi_plugin::rng::{derive_seed, seeded};
use yomi_plugin::typed::to_json;
use yomi_plugin::{CommandContext, ErrorCode, ErrorInfo};

use crate::features::{compute, COUNT, NAMES};
use crate::profile::{self, Store};
use crate::service::{faces, natural_or_plain, score, Config, MAX_FACES};

/// `yomi dice ...`.
#[derive(Parser, Debug)]
#[command(name = "yomi dice", about = "Natural dice: sequences that look random to players")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Personality flags shared by the generating commands.
#[derive(clap::Args, Debug, Clone)]
struct Dice {
    /// Faces of the die.
    #[arg(long, default_value_t = 6)]
    sides: u8,
    /// Search method: auto, local (the paper's), anneal.
    #[arg(long, default_value = "auto")]
    method: String,
    /// Ordinary PRNG instead of natural sequences.
    #[arg(long)]
    plain: bool,
    /// Seed (same seed, same output).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

impl Dice {
    fn config(&self) -> Result<Config, ErrorInfo> {
        let mut options = yomi_plugin::protocol::options::defaults(&crate::service::options());
        options.insert("sides".into(), self.sides.into());
        options.insert("method".into(), self.method.as_str().into());
        options.insert("mode".into(), if self.plain { "plain" } else { "natural" }.into());
        crate::service::options().iter().try_for_each(|spec| {
            spec.check(&options[&spec.name])
                .map(|_| ())
                .map_err(|e| ErrorInfo::new(ErrorCode::InvalidParams, e.to_string()))
        })?;
        Config::from_options(&options)
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print K sequences of N faces (stable: `--length N --count K --json` prints [[..], ..]).
    Sequence {
        #[arg(long, default_value_t = 50)]
        length: usize,
        #[arg(long, default_value_t = 1)]
        count: usize,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        dice: Dice,
    },
    /// Features and Err of a sequence (stable: `--json F1 F2 ...` prints {"features", "err"}).
    /// Faces are separate arguments, or one string of digits for dice up to 9 sides.
    Score {
        #[arg(long)]
        json: bool,
        #[arg(long, default_value_t = 6)]
        sides: u8,
        #[arg(required = true, allow_hyphen_values = true)]
        faces: Vec<String>,
    },
    /// Mean features and Err of plain vs natural sequences.
    Compare {
        #[arg(long, default_value_t = 50)]
        length: usize,
        #[arg(long, default_value_t = 300)]
        count: usize,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        dice: Dice,
    },
    /// Save a player's hand-written sequence (digits) and print the ranges it gives.
    Profile {
        #[arg(long)]
        player: String,
        /// The hand-written sequence, as digits ("4525143326...") or omitted to show.
        #[arg(long)]
        sequence: Option<String>,
    },
    /// The trap experiment: trap hits per 15 runs with plain, natural and controlled dice.
    Sugoroku {
        /// Sets of 15 runs per kind of dice.
        #[arg(long, default_value_t = 200)]
        sets: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
    /// The paper's section 6 numbers beside ours.
    Repro {
        #[command(flatten)]
        output: yomi_plugin::repro::Output,
    },
}

fn invalid(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidParams, message)
}

/// Runs one `yomi dice` command.
pub fn run(cli: Cli, ctx: &CommandContext) -> Result<String, ErrorInfo> {
    match cli.command {
        Command::Sequence { length, count, json, dice } => sequence(length, count, json, &dice),
        Command::Score { json, sides, faces } => score_cmd(json, sides, &faces),
        Command::Compare { length, count, json, dice } => compare(length, count, json, &dice),
        Command::Profile { player, sequence } => profile_cmd(ctx, &player, sequence.as_deref()),
        Command::Sugoroku { sets, seed, json } => {
            let value = crate::repro::sugoroku_experiment(sets, seed).map_err(invalid)?;
            Ok(if json {
                format!("{value}\n")
            } else {
                format!("{}\n", serde_json::to_string_pretty(&value).unwrap_or_default())
            })
        }
        Command::Repro { output } => {
            output.print(|| Ok(crate::repro::rows()), yomi_plugin::repro::markdown)
        }
    }
}

fn check_length(length: usize, count: usize) -> Result<(), ErrorInfo> {
    if length == 0 || length > MAX_FACES {
        return Err(invalid(format!("--length must be 1..={MAX_FACES}, got {length}")));
    }
    if count == 0 || count > 10_000 {
        return Err(invalid(format!("--count must be 1..=10000, got {count}")));
    }
    Ok(())
}

fn sequence(length: usize, count: usize, as_json: bool, dice: &Dice) -> Result<String, ErrorInfo> {
    check_length(length, count)?;
    let config = dice.config()?;
    let seqs: Vec<(Vec<u8>, f64)> = (0..count)
        .map(|i| {
            let (faces, err, _) =
                natural_or_plain(&config, length, &mut seeded(derive_seed(dice.seed, i as u64)));
            (faces, err)
        })
        .collect();
    if as_json {
        let arr: Vec<&Vec<u8>> = seqs.iter().map(|(f, _)| f).collect();
        return Ok(format!("{}\n", to_json(&arr)));
    }
    Ok(seqs.iter().map(|(f, err)| format!("{}  Err {err:.2}\n", show(f, config.sides))).collect())
}

/// Faces as digits for dice up to 9 sides, space-separated otherwise.
fn show(faces: &[u8], sides: u8) -> String {
    let parts: Vec<String> = faces.iter().map(u8::to_string).collect();
    parts.join(if sides <= 9 { "" } else { " " })
}

fn parse_faces(args: &[String], sides: u8) -> Result<Vec<u8>, ErrorInfo> {
    let tokens: Vec<String> = match args {
        [one] if one.len() > 1 && sides <= 9 && one.bytes().all(|b| b.is_ascii_digit()) => {
            one.chars().map(String::from).collect()
        }
        _ => args.to_vec(),
    };
    let values: Vec<u64> = tokens
        .iter()
        .map(|t| {
            t.parse::<u64>()
                .map_err(|_| invalid(format!("`{t}` is not a face (a whole number 1..={sides})")))
        })
        .collect::<Result<_, _>>()?;
    faces(&values, sides).map_err(|e| invalid(e.message))
}

fn score_cmd(as_json: bool, sides: u8, args: &[String]) -> Result<String, ErrorInfo> {
    let config = Dice { sides, method: "auto".into(), plain: false, seed: 1 }.config()?;
    let seq = parse_faces(args, sides)?;
    let scored = score(&config, &seq);
    if as_json {
        return Ok(format!("{}\n", to_json(&scored)));
    }
    let mut out = String::new();
    for (name, value) in NAMES.iter().map(|n| (n, scored.features[*n])) {
        out.push_str(&format!("{name:>4} {value:>8.2}\n"));
    }
    out.push_str(&format!(" Err {:>8.2}\n", scored.err));
    Ok(out)
}

fn compare(length: usize, count: usize, as_json: bool, dice: &Dice) -> Result<String, ErrorInfo> {
    check_length(length, count)?;
    let mut table = Vec::new();
    for plain in [true, false] {
        let config = Dice { plain, ..dice.clone() }.config()?;
        let mut sums = [0.0; COUNT + 1];
        for i in 0..count {
            let (faces, err, _) =
                natural_or_plain(&config, length, &mut seeded(derive_seed(dice.seed, i as u64)));
            let f = compute(&faces, config.sides);
            sums[..COUNT].iter_mut().zip(f).for_each(|(s, x)| *s += x);
            sums[COUNT] += err;
        }
        table.push(sums.map(|s| s / count as f64));
    }
    if as_json {
        let side = |t: &[f64; COUNT + 1]| -> BTreeMap<&str, f64> {
            NAMES.iter().copied().chain(["err"]).zip(t.iter().copied()).collect()
        };
        let (plain, natural) = (side(&table[0]), side(&table[1]));
        return Ok(format!("{}\n", to_json(&Comparison { length, count, plain, natural })));
    }
    let expected = crate::features::expected(length, dice.sides);
    let mut out = format!(
        "means over {count} sequences of {length} faces\nfeature   theory    plain  natural\n"
    );
    for i in 0..=COUNT {
        let (name, theory) = if i < COUNT {
            (NAMES[i], format!("{:8.2}", expected[i]))
        } else {
            ("Err", "       -".to_string())
        };
        out.push_str(&format!("{name:>7} {theory} {:8.2} {:8.2}\n", table[0][i], table[1][i]));
    }
    Ok(out)
}

/// `compare --json`: the mean features and Err of plain and natural sequences.
#[derive(Serialize)]
struct Comparison<'a> {
    length: usize,
    count: usize,
    plain: BTreeMap<&'a str, f64>,
    natural: BTreeMap<&'a str, f64>,
}

/// `profile`: the operator's saved profile of a player and the ranges it gives.
#[derive(Serialize)]
struct SavedProfile<'a> {
    player: &'a str,
    sides: u8,
    length: usize,
    ranges: Value,
}

fn profile_cmd(
    ctx: &CommandContext,
    player: &str,
    sequence: Option<&str>,
) -> Result<String, ErrorInfo> {
    let dir = ctx
        .data_dir
        .as_ref()
        .ok_or_else(|| invalid("profiles need a data directory (--data-dir)"))?;
    let store = Store::open(dir).map_err(|e| ErrorInfo::new(ErrorCode::Internal, e))?;
    let config = Config::default_config();
    if let Some(text) = sequence {
        let seq = parse_faces(&[text.to_string()], config.sides)?;
        profile::derive(&seq, config.sides, config.length).map_err(invalid)?;
        store
            .put(player, config.sides, &seq, None)
            .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e))?;
    }
    let profile::Saved { sides, sequence: seq, .. } = store
        .get(player)
        .map_err(|e| ErrorInfo::new(ErrorCode::Internal, e))?
        .ok_or_else(|| {
            ErrorInfo::new(
                ErrorCode::NotFound,
                format!("no profile for `{player}`; give one with --sequence"),
            )
        })?;
    let ranges = profile::derive(&seq, sides, config.length).map_err(invalid)?;
    let (length, ranges) = (seq.len(), ranges.to_json());
    Ok(format!("{}\n", to_json(&SavedProfile { player, sides, length, ranges })))
}
