//! Benchmarks: seven-card evaluations per second (ours and rs_poker, sequential and random
//! order), full games per second with the baseline bots, the fuzzy player's time per decision
//! by turn, and the step function F built from one enumeration (what a decision pays when its
//! cards are not yet in the process's cache).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rand::seq::SliceRandom;
use rs_poker::core::{Card as RsCard, Rankable, Suit, Value};
use serde_json::json;
use yomi_plugin::protocol::options::defaults;
use yomi_plugin::referee::play;
use yomi_plugin::rng::seeded;
use yomi_plugin::{ActRequest, Agent, AgentContext, Game, Options, Plugin};
use yomi_stud::cards::{mask, parse_cards, Card};
use yomi_stud::estimate::{for_each_completion, Scores, Scoring};
use yomi_stud::hand::{evaluate, EvalRules, ScoreMode};
use yomi_stud::{game_options, player_options, StudPlugin};

const HANDS: usize = 100_000;

/// The first `HANDS` seven-card hands in lexicographic order, and `HANDS` random ones.
fn hand_sets() -> (Vec<[Card; 7]>, Vec<[Card; 7]>) {
    let mut seq = Vec::with_capacity(HANDS);
    let mut idx = [0u8, 1, 2, 3, 4, 5, 6];
    while seq.len() < HANDS {
        seq.push(idx.map(Card::from_index));
        let mut k = 6;
        while idx[k] as usize == 52 - 7 + k {
            k -= 1;
        }
        idx[k] += 1;
        for j in k + 1..7 {
            idx[j] = idx[j - 1] + 1;
        }
    }
    let mut rng = seeded(3);
    let mut deck: Vec<Card> = Card::all().collect();
    let random = (0..HANDS)
        .map(|_| {
            deck.shuffle(&mut rng);
            [deck[0], deck[1], deck[2], deck[3], deck[4], deck[5], deck[6]]
        })
        .collect();
    (seq, random)
}

fn to_rs(hands: &[[Card; 7]]) -> Vec<Vec<RsCard>> {
    hands
        .iter()
        .map(|h| {
            h.iter()
                .map(|c| RsCard::new(Value::from_u8(c.rank() - 2), Suit::from_u8(c.suit())))
                .collect()
        })
        .collect()
}

fn evaluation(c: &mut Criterion) {
    let (seq, random) = hand_sets();
    let mut g = c.benchmark_group("eval7");
    g.throughput(Throughput::Elements(HANDS as u64));
    for (order, hands) in [("sequential", &seq), ("random", &random)] {
        let rs = to_rs(hands);
        g.bench_function(format!("yomi-stud/{order}"), |b| {
            b.iter(|| {
                hands
                    .iter()
                    .map(|h| {
                        evaluate(h, EvalRules::default()).key(yomi_stud::hand::TieRule::FullKickers)
                            as u64
                    })
                    .sum::<u64>()
            })
        });
        g.bench_function(format!("rs_poker/{order}"), |b| {
            b.iter(|| {
                rs.iter().filter(|h| matches!(h.rank(), rs_poker::core::Rank::OnePair(_))).count()
            })
        });
    }
    g.finish();
}

fn agent(bot: &str, options: Options, seed: u64) -> Box<dyn Agent> {
    StudPlugin.new_agent(bot, &options, &AgentContext { seed, ..AgentContext::default() }).unwrap()
}

fn game(changes: serde_json::Value, seed: u64) -> Box<dyn Game> {
    let mut o = defaults(&game_options());
    for (k, v) in changes.as_object().unwrap() {
        o.insert(k.clone(), v.clone());
    }
    StudPlugin.new_game("stud", &o, seed).unwrap()
}

fn games(c: &mut Criterion) {
    let mut g = c.benchmark_group("games");
    g.throughput(Throughput::Elements(100));
    for (name, bots) in [
        ("random-vs-random", ["random", "random"]),
        ("calling-station-vs-calling-station", ["calling-station", "calling-station"]),
    ] {
        g.bench_function(format!("100 games {name}"), |b| {
            b.iter(|| {
                let mut s = game(json!({"games": 100}), 7);
                let (mut x, mut y) =
                    (agent(bots[0], Options::new(), 1), agent(bots[1], Options::new(), 2));
                play(s.as_mut(), &mut [x.as_mut(), y.as_mut()]).unwrap().outcome.scores[0]
            })
        });
    }
    g.finish();
}

/// Decisions of seat 0 at every turn (betting and reveal), collected from a calling-station game.
fn decisions_by_turn() -> Vec<(String, ActRequest)> {
    let mut s = game(json!({"games": 1}), 12);
    let mut cs =
        [agent("calling-station", Options::new(), 1), agent("calling-station", Options::new(), 2)];
    let mut out = Vec::new();
    loop {
        let ds = s.decisions();
        if ds.is_empty() {
            break;
        }
        let mut actions = vec![];
        for d in ds {
            let req = ActRequest::new(d.observation.clone(), d.legal.clone());
            if d.seat == 0 {
                let phase = d.observation["phase"].as_str().unwrap_or("bet").to_string();
                out.push((format!("turn {} {phase}", d.observation["turn"]), req.clone()));
            }
            actions.push((d.seat, cs[d.seat].act(&req).unwrap().action));
        }
        s.apply(&actions).unwrap();
    }
    out
}

fn decisions(c: &mut Criterion) {
    let mut g = c.benchmark_group("fuzzy-decision");
    let options = defaults(&player_options(None));
    for (label, req) in decisions_by_turn() {
        g.bench_function(label, |b| {
            b.iter_batched(
                || agent("fuzzy", options.clone(), 3),
                |mut p| p.act(&req).unwrap(),
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

/// What a decision pays when its cards are not in the process's cache, on the last turn's
/// largest enumeration (10,660 opponent hands, three hole cards unseen): scoring every hand, and
/// building the step function F from those scores.
fn scores(c: &mut Criterion) {
    let s = Scoring { mode: ScoreMode::RankRefined, eval: EvalRules { wheel: true } };
    let own = parse_cards("As Kd 9c 2c 3d 4h 7s").unwrap();
    let up = parse_cards("Qh Jh 5c 6c").unwrap();
    let enumerate = || {
        let mut raw = Vec::with_capacity(11_000);
        for_each_completion(&up, mask(&own) | mask(&up), 3, |h| raw.push(s.score(h)));
        raw
    };
    let raw = enumerate();
    let mut g = c.benchmark_group("scores on a cache miss");
    g.throughput(Throughput::Elements(raw.len() as u64));
    g.bench_function(format!("score {} hands", raw.len()), |b| b.iter(enumerate));
    g.bench_function(format!("F of {} scores", raw.len()), |b| {
        b.iter_batched(|| raw.clone(), Scores::new, BatchSize::SmallInput)
    });
    g.finish();
}

criterion_group!(benches, evaluation, games, decisions, scores);
criterion_main!(benches);
