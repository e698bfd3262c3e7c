//! Decisions per second of `dvalue` on a mid-game position, and full three-player games per second
//! with the bots in process (dvalue, a typical student, greedy).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use yomi_plugin::referee::play;
use yomi_plugin::{ActRequest, Agent, AgentContext, Game, Plugin};
use yomi_sevens::game::Sevens;
use yomi_sevens::rules::Rules;
use yomi_sevens::SevensPlugin;

fn agent(bot: &str, preset: Option<&str>, seed: u64) -> Box<dyn Agent> {
    let p = SevensPlugin;
    let options = p.bot_options(bot, preset, &Default::default()).unwrap();
    p.new_agent(bot, &options, &AgentContext { seed, ..AgentContext::default() }).unwrap()
}

fn benches(c: &mut Criterion) {
    // A mid-game decision: play 12 greedy moves from a seeded deal, then ask dvalue.
    let mut game = Sevens::new(Rules::default(), 42);
    let mut greedy = agent("greedy", None, 0);
    for _ in 0..12 {
        let d = game.decisions().remove(0);
        let a = greedy.act(&ActRequest::new(d.observation, d.legal)).unwrap();
        game.apply(&[(d.seat, a.action)]).unwrap();
    }
    let d = game.decisions().remove(0);
    let request = ActRequest::new(d.observation, d.legal);
    let mut group = c.benchmark_group("dvalue");
    group.throughput(Throughput::Elements(1));
    let mut bot = agent("dvalue", None, 1);
    group.bench_function("decision", |b| b.iter(|| bot.act(&request).unwrap()));
    let mut warm = agent("dvalue", Some("fluctuating"), 1);
    group.bench_function("decision_temperature_1", |b| b.iter(|| warm.act(&request).unwrap()));
    group.finish();

    let mut group = c.benchmark_group("game");
    group.throughput(Throughput::Elements(1));
    let (mut a, mut s, mut g) =
        (agent("dvalue", None, 1), agent("student", Some("typical"), 2), agent("greedy", None, 3));
    let mut seed = 0u64;
    group.bench_function("three_players", |b| {
        b.iter(|| {
            seed += 1;
            let mut game = Sevens::new(Rules::default(), seed);
            let mut agents: Vec<&mut dyn Agent> = vec![a.as_mut(), s.as_mut(), g.as_mut()];
            play(&mut game, &mut agents).unwrap().outcome
        })
    });
    group.finish();
}

criterion_group!(sevens, benches);
criterion_main!(sevens);
