//! Why a bluff against a tight model succeeds so often (REPRODUCTION.md, "Why a bluff drives a
//! tight model out"): replays the reproduction's tight-model runs on deal set 0 (the same seeds as
//! `yomi repro stud`, default reading unless `key=value` arguments give another) with every
//! decision's `explain`, and for each game the bluffing player bluffed in reports where it ended
//! and, at the model's drop, the model's estimate and which of its inputs put it behind.
//! Run with `cargo run --release -p yomi-stud --example bluff_trace [key=value ...]`.

use serde_json::{json, Value};
use yomi_plugin::referee::play;
use yomi_plugin::rng::derive_seed;
use yomi_plugin::typed::{Choice, Typed, TypedAgent};
use yomi_plugin::{ErrorInfo, Options};
use yomi_stud::cards::Card;
use yomi_stud::estimate::{opponent_scores, Scoring};
use yomi_stud::hand::{evaluate, winner, EvalRules, ScoreMode, TieRule};
use yomi_stud::payload::{Action, Observation};
use yomi_stud::player::FuzzyPlayer;
use yomi_stud::repro::{closest_deal_sets, parse_reading, setup, REVEALS, SET_TRIES};

const REFINED: Scoring = Scoring { mode: ScoreMode::RankRefined, eval: EvalRules { wheel: true } };

/// One decision with what the player saw and its reasons.
struct Entry {
    game: u64,
    turn: u8,
    up: Vec<Card>,
    hole: Vec<Card>,
    opp_up: Vec<Card>,
    opp_hole: usize,
    action: Value,
    explain: Value,
}

/// A player that keeps every decision's `explain`.
struct Traced {
    inner: FuzzyPlayer,
    log: Vec<Entry>,
}

impl TypedAgent for Traced {
    type Observation = Observation;

    fn act(
        &mut self,
        obs: &Observation,
        legal: Vec<Action>,
        _: bool,
    ) -> Result<Choice<Action>, ErrorInfo> {
        let choice = self.inner.act(obs, legal, true)?;
        self.log.push(Entry {
            game: obs.game,
            turn: obs.turn,
            up: obs.up.clone(),
            hole: obs.hole.clone(),
            opp_up: obs.opp_up.clone(),
            opp_hole: obs.opp_hole_count,
            action: serde_json::to_value(choice.action).unwrap_or(Value::Null),
            explain: choice.explain.clone().unwrap_or(Value::Null),
        });
        Ok(choice)
    }

    fn observe(&mut self, event: &Value) -> Result<(), ErrorInfo> {
        self.inner.observe(event)
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.inner.configure(options)
    }
}

fn is_drop(e: &Entry) -> bool {
    e.action["act"] == "drop"
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

#[derive(Default)]
struct Tally {
    bluffs: u64,
    /// How bluff games ended: the model's drop at turn 5, 6, 7; the bluffer's own drop; showdown.
    model_drop: [u64; 8],
    own_drop: u64,
    showdown: u64,
    /// At the model's drop: cards alone behind (expect < 0), or only the learned adjustment.
    by_expect: u64,
    by_infer: u64,
    /// At turn-6/7 drops: behind before the bluffer's reveal too (its dealt up cards only).
    late_drops: u64,
    late_behind_before_reveal: u64,
    /// The model actually held the better final hand when it dropped.
    model_ahead: u64,
    /// Of the model's drops, those still behind when the expectation is taken of F (`E[F]`,
    /// REPRODUCTION.md's closest-to-half reading of (3.2)).
    behind_under_ef: u64,
    sums: [f64; 6],
    n: f64,
    /// All of the model's turn-5 judgements: count, behind, mean F(hum_expect).
    t5: u64,
    t5_behind: u64,
    t5_fh: f64,
    /// The bluffer's turn-5 bets while behind: all, bluffs, and with the model behind too at
    /// turn 5 from its cards alone (expect < 0).
    own_behind: [u64; 2],
    own_behind_model_behind: [u64; 2],
    bluff_model_behind: [u64; 2],
    t5_bluffs: [u64; 2],
    bluff_a: f64,
    /// Games with a strong-looking reveal while behind (§3.4's bluff, §5.2.2's count), and
    /// those the model dropped after it; by the bluffer's seat (first, second).
    reveal_bluffs: [u64; 2],
    /// The bluffer's answers to an open (second actor): calls, raises.
    answers: [u64; 2],
    reveal_successes: [u64; 2],
}

fn main() -> Result<(), ErrorInfo> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reading = parse_reading(&args)?;
    let (set_seed, set) = closest_deal_sets(SET_TRIES, 1, 500).remove(0);
    let mut all = Tally::default();
    println!("| run | bluffs | successes | model drops at 5 / 6 / 7 | bluffer drops | showdowns |");
    println!("|---|---|---|---|---|---|");
    for reveal in REVEALS {
        for model in 0..2 {
            for first in [true, false] {
                let seed = derive_seed(2004 ^ set_seed, (model * 2 + usize::from(first)) as u64);
                let (mut session, system, opponent) =
                    setup(&set, model, reveal, first, seed, false, &reading)?;
                let mut sys = Typed(Traced { inner: system, log: vec![] });
                let mut opp = Typed(Traced { inner: opponent, log: vec![] });
                play(&mut session, &mut [&mut sys, &mut opp])?;
                let before = (all.bluffs, all.model_drop, all.own_drop, all.showdown);
                tally(&mut all, &sys.0.log, &opp.0.log, &set.deals, first);
                let drops = |k: usize| all.model_drop[k] - before.1[k];
                println!(
                    "| {}{} {reveal} | {} | {} | {} / {} / {} | {} | {} |",
                    ["TA", "TP"][model],
                    if first { "" } else { "_2" },
                    all.bluffs - before.0,
                    drops(5) + drops(6) + drops(7),
                    drops(5),
                    drops(6),
                    drops(7),
                    all.own_drop - before.2,
                    all.showdown - before.3
                );
            }
        }
    }
    report(&all);
    Ok(())
}

/// The model's `expect` at its turn-5 cards against the bluffer's four dealt up cards.
fn expect_of(own: &[Card], opp_up: &[Card], opp_hole: usize) -> f64 {
    let scores = opponent_scores(own, opp_up, opp_hole, REFINED);
    scores.cdf(REFINED.score(own)) - scores.cdf(scores.mean())
}

fn tally(
    t: &mut Tally,
    sys: &[Entry],
    opp: &[Entry],
    deals: &[yomi_stud::cards::Deal],
    first: bool,
) {
    let (sys_pos, opp_pos) = if first { (0, 1) } else { (1, 0) };
    for (i, deal) in deals.iter().enumerate() {
        let g = i as u64 + 1;
        let mine: Vec<&Entry> = sys.iter().filter(|e| e.game == g).collect();
        let theirs: Vec<&Entry> = opp.iter().filter(|e| e.game == g).collect();
        let seat = usize::from(!first);
        if !first {
            for e in &mine {
                t.answers[0] += u64::from(e.action["act"] == "call");
                t.answers[1] += u64::from(e.action["act"] == "raise");
            }
        }
        for e in theirs.iter().filter(|e| e.turn == 5 && !e.explain["result"].is_null()) {
            t.t5 += 1;
            t.t5_behind += u64::from(f(&e.explain["result"]) < 0.0);
            t.t5_fh += f(&e.explain["p"]) - f(&e.explain["expect"]);
        }
        // The bluffer's turn-5 bet decision while behind.
        if let Some(b) = mine.iter().find(|e| e.turn == 5) {
            if f(&b.explain["result"]) < 0.0 {
                let model_cards: Vec<Card> = deal.cards[opp_pos].to_vec();
                let model_behind = expect_of(&model_cards, &b.up, 3) < 0.0;
                t.own_behind[seat] += 1;
                t.own_behind_model_behind[seat] += u64::from(model_behind);
                if b.explain["bluff"] == json!(true) {
                    t.t5_bluffs[seat] += 1;
                    t.bluff_model_behind[seat] += u64::from(model_behind);
                    t.bluff_a += f(&b.explain["a"]);
                }
            }
        }
        let bluff_reveal = mine.iter().find(|e| {
            e.explain["reveal_reason"]
                .as_str()
                .is_some_and(|r| r.ends_with("(bluff)") || r.contains("carried"))
        });
        if let Some(r) = bluff_reveal {
            t.reveal_bluffs[seat] += 1;
            t.reveal_successes[seat] +=
                u64::from(theirs.iter().any(|e| is_drop(e) && e.turn >= r.turn));
        }
        if !mine.iter().any(|e| e.explain["bluff"] == json!(true)) {
            continue;
        }
        t.bluffs += 1;
        if let Some(d) = theirs.iter().find(|e| is_drop(e)) {
            t.model_drop[d.turn as usize] += 1;
            let x = &d.explain;
            let (result, expect, infer, p) =
                (f(&x["result"]), f(&x["expect"]), f(&x["infer"]), f(&x["p"]));
            if expect < 0.0 {
                t.by_expect += 1;
            } else {
                t.by_infer += 1;
            }
            for (k, v) in
                [result, expect, infer, p, p - expect, f(&x["hum_expect"])].into_iter().enumerate()
            {
                t.sums[k] += v;
            }
            t.n += 1.0;
            if d.turn >= 6 {
                t.late_drops += 1;
                let own: Vec<Card> = [d.hole.clone(), d.up.clone()].concat();
                let dealt: Vec<Card> = d.opp_up[..4].to_vec();
                t.late_behind_before_reveal +=
                    u64::from(expect_of(&own, &dealt, d.opp_hole + d.opp_up.len() - 4) < 0.0);
            }
            let hand = |pos: usize| evaluate(&deal.cards[pos], EvalRules::default());
            let w = winner(&hand(opp_pos), &hand(sys_pos), TieRule::HandCardsOnly);
            t.model_ahead += u64::from(w == 1);
            let own: Vec<Card> = [d.hole.clone(), d.up.clone()].concat();
            let scores = opponent_scores(&own, &d.opp_up, d.opp_hole, REFINED);
            let ef = scores.masses().map(|(x, m)| m * scores.cdf(x)).sum::<f64>();
            t.behind_under_ef += u64::from(scores.cdf(REFINED.score(&own)) < ef);
        } else if mine.iter().any(|e| is_drop(e)) {
            t.own_drop += 1;
        } else {
            t.showdown += 1;
        }
    }
}

fn report(t: &Tally) {
    let succ: u64 = t.model_drop.iter().sum();
    println!(
        "\nall tight runs: {} bluffs, {} successes ({:.2}); model drops at turn 5 / 6 / 7: {} / {} / {}; \
         bluffer's own later drops {}, showdowns {}",
        t.bluffs,
        succ,
        succ as f64 / t.bluffs.max(1) as f64,
        t.model_drop[5],
        t.model_drop[6],
        t.model_drop[7],
        t.own_drop,
        t.showdown
    );
    let n = t.n.max(1.0);
    println!(
        "at the model's drop (means): result {:.3}, expect {:.3}, infer {:.3}, F(com) {:.3}, \
         F(hum_expect) {:.3}, hum_expect {:.3}",
        t.sums[0] / n,
        t.sums[1] / n,
        t.sums[2] / n,
        t.sums[3] / n,
        t.sums[4] / n,
        t.sums[5] / n
    );
    println!(
        "behind from the cards alone (expect < 0): {}; only through the learned infer: {}; \
         the model held the better final hand: {} of {}",
        t.by_expect, t.by_infer, t.model_ahead, succ
    );
    println!(
        "still behind with the expectation taken of F (E[F], no infer): {} of {}",
        t.behind_under_ef, succ
    );
    println!(
        "turn-6/7 drops: {}, of which behind already against the four dealt up cards: {}",
        t.late_drops, t.late_behind_before_reveal
    );
    println!(
        "the model's turn-5 judgements: {}, behind {:.3}, mean F(hum_expect) {:.3}",
        t.t5,
        t.t5_behind as f64 / t.t5.max(1) as f64,
        t.t5_fh / t.t5.max(1) as f64
    );
    let rate = |k: usize| t.reveal_successes[k] as f64 / t.reveal_bluffs[k].max(1) as f64;
    println!(
        "bluffs counted by the strong-looking reveal (§3.4, §5.2.2): bluffer first {} ({} \
         succeeded, {:.2}), second {} ({} succeeded, {:.2})",
        t.reveal_bluffs[0],
        t.reveal_successes[0],
        rate(0),
        t.reveal_bluffs[1],
        t.reveal_successes[1],
        rate(1)
    );
    for (k, who) in ["first", "second"].iter().enumerate() {
        let share = |a: u64, b: u64| a as f64 / b.max(1) as f64;
        println!(
            "bluffer {who}: behind at its turn-5 bet {}, the model behind too from the cards \
             alone {:.3}; of its {} turn-5 bluffs {:.3}",
            t.own_behind[k],
            share(t.own_behind_model_behind[k], t.own_behind[k]),
            t.t5_bluffs[k],
            share(t.bluff_model_behind[k], t.t5_bluffs[k])
        );
    }
    println!(
        "the bluffer's answers to an open as second actor: {} calls, {} raises (call share {:.2}; \
         the paper's six records 4 of 37)",
        t.answers[0],
        t.answers[1],
        t.answers[0] as f64 / (t.answers[0] + t.answers[1]).max(1) as f64
    );
    let bl = t.t5_bluffs[0] + t.t5_bluffs[1];
    println!("mean (3.8) a of the turn-5 bluffs {:.3}", t.bluff_a / bl.max(1) as f64);
}
