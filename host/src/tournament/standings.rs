//! Standings from finished games: each bot's score, pairwise record and Elo with its interval
//! (fitted jointly to every result, the first bot at 0: [`super::ladder`]), each pairing's score
//! table and statistics ([`super::outcomes`]), failures per bot, and the SPRT where one was
//! asked for.

use yomi_protocol::ops::tournaments::{CrossRow, Pairing, Pairwise, Standing, Standings};

use super::finished::Finished;
use super::ladder::Results;
use super::outcomes::Counts;
use super::rating::Tally;
use super::schedule::TournamentSpec;
use crate::matches::policy::{FailureCounts, FailureKind};

/// Computes the standings for `labels` (one per bot of the spec).
pub fn standings(
    spec: &TournamentSpec,
    labels: &[String],
    seats: usize,
    games: &[Finished],
) -> Standings {
    let bots = labels.len();
    let mut tally = vec![Pairwise::default(); bots];
    let mut played = vec![0u64; bots];
    let mut score = vec![0.0f64; bots];
    let mut failures = vec![FailureCounts::default(); bots];
    let pairings = spec.pairings(seats);
    let mut pair_games = vec![0u64; pairings.len()];
    let mut pair_scores: Vec<Vec<f64>> = pairings.iter().map(|p| vec![0.0; p.len()]).collect();
    let mut outcomes = vec![Counts::default(); pairings.len()];
    for g in games {
        pair_games[g.slot.pairing] += 1;
        outcomes[g.slot.pairing].add(&pairings[g.slot.pairing], g);
        for (seat, &bot) in g.slot.seats.iter().enumerate() {
            played[bot] += 1;
            score[bot] += g.scores[seat];
            failures[bot].merge(&g.failures[seat]);
            if let Some(pos) = pairings[g.slot.pairing].iter().position(|&b| b == bot) {
                pair_scores[g.slot.pairing][pos] += g.scores[seat];
            }
            add_pairwise(&mut tally[bot], bot, g);
        }
    }
    let results = Results::of(bots, games);
    let ratings = results.fit(REFERENCE);
    let rows: Vec<Standing> = (0..bots)
        .map(|b| {
            let rated = played[b] > 0;
            let (elo, ci) = (ratings[b].elo, ratings[b].ci95);
            Standing {
                bot: labels[b].clone(),
                games: played[b],
                score: score[b],
                score_rate: if played[b] > 0 { score[b] / played[b] as f64 } else { 0.0 },
                pairwise: tally[b],
                elo: finite(elo).filter(|_| rated),
                elo_ci95: [finite(ci[0]).filter(|_| rated), finite(ci[1]).filter(|_| rated)],
                failures: failures[b].clone(),
            }
        })
        .collect();
    // Highest Elo first; a bot without one (no games) counts as 0, as before.
    let mut order: Vec<usize> = (0..bots).collect();
    order.sort_by(|&a, &b| rows[b].elo.unwrap_or(0.0).total_cmp(&rows[a].elo.unwrap_or(0.0)));
    let crosstable = crosstable(&results, labels, &order);
    let rows: Vec<Standing> = order.iter().map(|&b| rows[b].clone()).collect();
    let pairings = pairings
        .iter()
        .enumerate()
        .map(|(p, members)| {
            let mut row = Pairing {
                bots: members.iter().map(|&b| labels[b].clone()).collect(),
                games: pair_games[p],
                scores: pair_scores[p].clone(),
                ..Pairing::default()
            };
            outcomes[p].report(spec.repeat, &mut row);
            row
        })
        .collect();
    // The SPRT compares exactly two bots: pairing 0 is theirs.
    let sprt =
        spec.sprt.as_ref().map(|sprt| sprt.state(outcomes[0].outcomes(spec.repeat).as_ref()));
    Standings {
        standings: rows,
        elo_reference: labels[REFERENCE].clone(),
        pairings,
        crosstable,
        sprt,
    }
}

/// The crosstable with rows and columns in `order`.
fn crosstable(results: &Results, labels: &[String], order: &[usize]) -> Vec<CrossRow> {
    order
        .iter()
        .map(|&i| {
            let cells: Vec<(f64, u64)> =
                order.iter().map(|&j| results.head_to_head(i, j)).collect();
            CrossRow {
                bot: labels[i].clone(),
                points: cells.iter().map(|&(p, n)| (n > 0).then_some(p)).collect(),
                games: cells.iter().map(|&(_, n)| n).collect(),
            }
        })
        .collect()
}

/// The crosstable for people: each bot's points against each (with the comparisons), columns
/// numbered by the rows' ranks.
pub fn render_crosstable(standings: &Standings) -> String {
    let rows = &standings.crosstable;
    let width = rows.iter().map(|r| r.bot.chars().count()).max().unwrap_or(0).max(3);
    let mut out = format!("rank  {:<width$}", "bot");
    (1..=rows.len()).for_each(|rank| out.push_str(&format!(" {rank:>11}")));
    out.push('\n');
    for (i, r) in rows.iter().enumerate() {
        out.push_str(&format!("{:>4}  {:<width$}", i + 1, r.bot));
        for (points, games) in r.points.iter().zip(&r.games) {
            let cell = points.map_or("-".into(), |p| format!("{p}/{games}"));
            out.push_str(&format!(" {cell:>11}"));
        }
        out.push('\n');
    }
    out
}

/// The bot held at Elo 0: the first one listed (in a gauntlet, the one meeting all the others).
const REFERENCE: usize = 0;

/// Adds `bot`'s comparisons against every other bot of one game (nothing if it did not play).
fn add_pairwise(tally: &mut Pairwise, bot: usize, game: &Finished) {
    let Some(seat) = game.slot.seats.iter().position(|&b| b == bot) else { return };
    for (other_seat, &other) in game.slot.seats.iter().enumerate() {
        if other != bot {
            tally.add(game.scores[seat], game.scores[other_seat]);
        }
    }
}

/// To one decimal; JSON has no infinities, so an unbounded interval end becomes null.
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then(|| (x * 10.0).round() / 10.0 + 0.0)
}

/// The standings as a table for people: the bot column as wide as its longest label, and each
/// bot's failures (timeouts, illegal actions, errors, crashes, disconnects) in words.
pub fn render(standings: &Standings) -> String {
    let rows = &standings.standings;
    let width = rows.iter().map(|r| r.bot.chars().count()).max().unwrap_or(0).max(3);
    let mut out = format!(
        "rank  {:<width$}  games    score   rate      elo  95% CI          failures\n",
        "bot"
    );
    for (i, r) in rows.iter().enumerate() {
        let ci = interval(r.elo_ci95);
        out.push_str(&format!(
            "{:>4}  {:<width$} {:>6} {:>8.1} {:>6.3} {:>8}  {:<15} {}\n",
            i + 1,
            r.bot,
            r.games,
            r.score,
            r.score_rate,
            number(r.elo),
            ci,
            failures_text(&r.failures),
        ));
    }
    if !rows.is_empty() {
        out.push_str(&format!(
            "elo: fitted jointly to every result (Bradley-Terry), {} at 0\n",
            standings.elo_reference
        ));
    }
    if !standings.pairings.is_empty() {
        out.push('\n');
        out.push_str(&pairings_table(&standings.pairings));
    }
    if let Some(s) = &standings.sprt {
        out.push_str(&format!(
            "\nSPRT: LLR {:.3} in [{:.3}, {:.3}]: {}\n",
            s.llr, s.lower, s.upper, s.decision
        ));
    }
    out
}

/// The pairings' statistics, each column as wide as its widest cell (an Elo of a shutout and its
/// unbounded interval are wider than most).
fn pairings_table(pairings: &[Pairing]) -> String {
    const HEADER: [&str; 9] =
        ["pairing", "games", "scores", "elo", "95% CI", "nelo", "95% CI", "los", "outcomes"];
    /// Numbers are right-aligned, words and lists left.
    const RIGHT: [bool; 9] = [false, true, false, true, false, true, false, true, false];
    let mut rows = vec![HEADER.map(String::from)];
    for p in pairings {
        let scores: Vec<String> = p.scores.iter().map(|&s| number(Some(s))).collect();
        let counts = match (&p.pentanomial, &p.trinomial) {
            (Some(five), _) => format!("pentanomial {five:?}"),
            (None, Some(three)) => format!("trinomial {three:?} (L-D-W)"),
            (None, None) => format!("{} (no pairwise statistics)", p.model),
        };
        rows.push([
            p.bots.join(" vs "),
            p.games.to_string(),
            format!("[{}]", scores.join(",")),
            number(p.elo),
            interval(p.elo_ci95),
            number(p.nelo),
            interval(p.nelo_ci95),
            p.los.map_or("-".into(), |l| format!("{:.1}%", l * 100.0)),
            counts,
        ]);
    }
    let widths: Vec<usize> = (0..HEADER.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .zip(RIGHT)
            .map(
                |((cell, &w), right)| {
                    if right {
                        format!("{cell:>w$}")
                    } else {
                        format!("{cell:<w$}")
                    }
                },
            )
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// A number as its JSON text (`70.4`, `6.0`), `null` for none: how the table has always shown
/// Elo, its interval and the pairing scores.
fn number(x: Option<f64>) -> String {
    x.map_or_else(|| "null".into(), |x| serde_json::Value::from(x).to_string())
}

/// A 95 % interval for people: `[-50.0, 190.8]`; with an unbounded end, what is known, as
/// `< -426.3` or `> 512.0`; `-` when nothing is.
fn interval(ci: [Option<f64>; 2]) -> String {
    match ci {
        [Some(low), Some(high)] => format!("[{}, {}]", number(Some(low)), number(Some(high))),
        [None, Some(high)] => format!("< {}", number(Some(high))),
        [Some(low), None] => format!("> {}", number(Some(low))),
        [None, None] => "-".into(),
    }
}

/// A bot's failure counts in words, kinds in alphabetical order, `-` for none: `1 illegal, 3
/// timeout`.
fn failures_text(failures: &FailureCounts) -> String {
    let mut kinds = FailureKind::ALL;
    kinds.sort_by_key(|kind| kind.name());
    let counts: Vec<String> = kinds
        .iter()
        .filter(|&&kind| failures.get(kind) > 0)
        .map(|&kind| format!("{} {}", failures.get(kind), kind.name()))
        .collect();
    if counts.is_empty() {
        "-".into()
    } else {
        counts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use yomi_protocol::ops::tournaments::Sprt;

    fn row(bot: &str, score: f64, elo: f64, ci: [f64; 2], failures: FailureCounts) -> Standing {
        let rate = score / 10.0;
        let pairwise = Pairwise::default();
        let (games, elo_ci95) = (10, [Some(ci[0]), Some(ci[1])]);
        Standing {
            bot: bot.into(),
            games,
            score,
            score_rate: rate,
            pairwise,
            elo: Some(elo),
            elo_ci95,
            failures,
        }
    }

    #[test]
    fn long_labels_keep_the_columns_in_line_and_failures_show() {
        let long = "battle/mc:preset=greedy,playouts=2000";
        let failures = FailureCounts { timeout: 3, error: 1, ..FailureCounts::default() };
        let table = render(&Standings {
            elo_reference: "battle/nash".into(),
            crosstable: vec![],
            standings: vec![
                row(long, 6.0, 70.4, [-50.0, 190.8], failures),
                row("battle/nash", 4.0, -70.4, [-190.8, 50.0], FailureCounts::default()),
            ],
            pairings: vec![
                Pairing {
                    bots: vec![long.into(), "battle/nash".into()],
                    games: 10,
                    scores: vec![6.0, 4.0],
                    model: "trinomial".into(),
                    trinomial: Some([3, 2, 5]),
                    elo: Some(70.4),
                    elo_ci95: [Some(-50.0), Some(190.8)],
                    nelo: Some(61.5),
                    nelo_ci95: [None, Some(200.0)],
                    los: Some(0.8123),
                    ..Pairing::default()
                },
                Pairing {
                    bots: vec!["battle/random".into(), "battle/nash".into()],
                    games: 10,
                    scores: vec![0.0, 10.0],
                    model: "trinomial".into(),
                    trinomial: Some([10, 0, 0]),
                    elo: Some(-1440.9),
                    elo_ci95: [None, Some(-822.0)],
                    nelo: Some(-8969.6),
                    nelo_ci95: [Some(-9121.8), Some(-8817.3)],
                    los: Some(0.0),
                    ..Pairing::default()
                },
            ],
            sprt: None,
        });
        let lines: Vec<&str> = table.lines().collect();
        // Every column starts at the same place on the header and on both rows.
        let games_at = lines[0].find("games").unwrap();
        assert_eq!(lines[1].find(" 10 ").map(|i| i + 3), Some(games_at + 5));
        assert_eq!(lines[2].find(" 10 ").map(|i| i + 3), Some(games_at + 5));
        let failures_at = lines[0].find("failures").unwrap();
        assert_eq!(&lines[1][failures_at..], "1 error, 3 timeout");
        assert_eq!(&lines[2][failures_at..], "-");
        assert!(lines[1].contains("    70.4  [-50.0, 190.8] "), "{}", lines[1]);
        assert_eq!(
            lines[3],
            "elo: fitted jointly to every result (Bradley-Terry), battle/nash at 0"
        );
        // The pairings' columns line up with their header, however wide a shutout's cells are.
        let (header, rows) = (lines[5], &lines[6..8]);
        assert!(rows[0].starts_with(&format!("{long} vs battle/nash")), "{table}");
        for row in rows {
            let end_of = |line: &str, word: &str| line.find(word).map(|i| i + word.len());
            assert_eq!(end_of(row, " 10 ").map(|e| e - 1), end_of(header, "games"), "{table}");
            assert_eq!(row.find("trinomial"), header.find("outcomes"), "{table}");
            assert_eq!(end_of(row, "%"), end_of(header, "los"), "{table}");
        }
        assert!(rows[1].contains("-8969.6  [-9121.8, -8817.3]"), "{table}");
    }

    /// A paired round robin in which `c` loses every game: the ratings are the joint fit with
    /// the first bot at 0 (finite, `c` last), and each pairing counts its pairs.
    #[test]
    fn standings_rate_jointly_and_count_pairs() {
        let spec: TournamentSpec = serde_json::from_value(serde_json::json!({
            "game": "rps", "bots": [{"bot": "a"}, {"bot": "b"}, {"bot": "c"}],
            "games_per_pair": 4, "repeat": true
        }))
        .unwrap();
        let schedule = spec.schedule(2, u64::MAX).unwrap();
        let labels: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let games: Vec<Finished> = (0..schedule.total())
            .map(|i| {
                let slot = schedule.slot(i);
                // c always loses; a and b share a deal's wins: the first seat wins.
                let scores = match slot.seats.iter().position(|&b| b == 2) {
                    Some(c) => (0..2).map(|s| if s == c { 0.0 } else { 1.0 }).collect(),
                    None => vec![1.0, 0.0],
                };
                Finished { slot, scores, failures: vec![FailureCounts::default(); 2] }
            })
            .collect();
        let s = standings(&spec, &labels, 2, &games);
        assert_eq!(s.elo_reference, "a");
        let order: Vec<&str> = s.standings.iter().map(|r| r.bot.as_str()).collect();
        assert_eq!(order[2], "c");
        let fit = Results::of(3, &games).fit(0);
        for row in &s.standings {
            let b = labels.iter().position(|l| *l == row.bot).unwrap();
            assert_eq!(row.elo, finite(fit[b].elo));
            assert!(row.elo_ci95.iter().all(Option::is_some), "finite: {row:?}");
        }
        assert_eq!(s.standings.iter().find(|r| r.bot == "a").unwrap().elo, Some(0.0));
        let counts: Vec<Option<[u64; 5]>> = s.pairings.iter().map(|p| p.pentanomial).collect();
        // a vs b: each pair one win each (1 point); a vs c and b vs c: two wins (2 points).
        assert_eq!(counts, [Some([0, 0, 2, 0, 0]), Some([0, 0, 0, 0, 2]), Some([0, 0, 0, 0, 2])]);
        // The crosstable follows the standings' order; c scored nothing in its 4 + 4 games.
        let bots: Vec<&str> = s.crosstable.iter().map(|r| r.bot.as_str()).collect();
        assert_eq!(bots, order);
        assert_eq!(s.crosstable[2].points, [Some(0.0), Some(0.0), None]);
        assert_eq!(s.crosstable[2].games, [4, 4, 0]);
        assert_eq!(s.crosstable[0].points[1], Some(2.0), "a and b split their 4 games");
        let table = render_crosstable(&s);
        assert_eq!(table.lines().nth(3).unwrap(), "   3  c           0/4         0/4           -");
    }

    #[test]
    fn an_unrated_bot_shows_null_and_the_sprt_its_decision() {
        let mut unrated = row("rps/uniform", 0.0, 0.0, [0.0, 0.0], FailureCounts::default());
        (unrated.games, unrated.elo, unrated.elo_ci95) = (0, None, [None, None]);
        let sprt = Sprt { llr: 3.1, lower: -2.944, upper: 2.944, decision: "H1".into() };
        let table = render(&Standings {
            standings: vec![unrated],
            sprt: Some(sprt),
            ..Standings::default()
        });
        assert!(table.lines().nth(1).unwrap().contains("    null  -  "), "{table}");
        assert!(table.ends_with("\nSPRT: LLR 3.100 in [-2.944, 2.944]: H1\n"), "{table}");
    }
}
