//! The cost of the plugin boundary: one `act` on the example `rps` bot through the C ABI (JSON in,
//! JSON out, as the host makes it) against the same bot called as a plain Rust library.
//!
//! Needs the plugin library built: `cargo build --release --workspace`, then
//! `cargo bench -p yomi --bench plugin_call`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use serde_json::json;
use yomi_plugin::call::{Answer, Call, CallReply, Open};
use yomi_plugin::typed::Typed;
use yomi_plugin::{ActReply, ActRequest, Agent, AgentContext, Options};
use yomi_plugin_engine::LoadedPlugin;
use yomi_protocol::options;

/// A reading bot (no randomness in the decision beyond one draw), its other options the
/// declared defaults, and a typical observation.
fn setup(plugin: &LoadedPlugin) -> (Options, ActRequest) {
    let reading: Options =
        serde_json::from_value(json!({"favourite": "rock", "bias": 0.0, "reading": 1})).unwrap();
    let rps = plugin.manifest.bots.iter().find(|b| b.name == "rps").expect("the rps bot");
    let options = options::resolve(&rps.options, &[], None, &reading).expect("rps options");
    let request = ActRequest::new(
        json!({"seat": 0, "round": 2, "rounds": 3, "history": [["rock", "paper"]], "opponent_last": "paper", "score": [0.0, 1.0]}),
        vec![json!("rock"), json!("paper"), json!("scissors")],
    );
    (options, request)
}

fn bench(c: &mut Criterion) {
    let plugin =
        LoadedPlugin::load(&yomi_e2e::library("yomi_example")).expect("load the example plugin");
    let (options, request) = setup(&plugin);
    let mut group = c.benchmark_group("rps act");

    // The bot as a Rust library, behind the same typed adapter the plugin declares: no crossing,
    // no encoding of the call or the reply.
    let mut direct = Typed(yomi_example::bot::RpsBot::new(&options, 1).unwrap());
    group.bench_function("direct (rlib)", |b| {
        b.iter(|| black_box(direct.act(black_box(&request)).unwrap()))
    });

    // The same bot behind the C ABI, as the host calls it: encode the call, cross, decode inside,
    // act, encode the reply, cross back, decode, free.
    let open = Open::Agent {
        bot: "rps".into(),
        options: options.clone(),
        context: AgentContext { seed: 1, ..AgentContext::default() },
        cancel: Default::default(),
    };
    let mut handle = plugin.open(&open).unwrap();
    let call = Call::Act(request.clone());
    group.bench_function("C ABI (JSON in/out)", |b| {
        b.iter(|| black_box(handle.invoke::<ActReply>(black_box(&call)).unwrap()))
    });

    // The crossing alone, with the request already encoded (what a host that forwards a client's
    // bytes could do).
    let encoded = serde_json::to_vec(&call).unwrap();
    group.bench_function("C ABI, pre-encoded request", |b| {
        b.iter(|| black_box(handle.invoke_raw::<ActReply>(black_box(&encoded)).unwrap()))
    });

    // The same JSON work without the crossing: encode the call, decode it, act on the rlib bot,
    // encode the reply, decode it. The difference to the C ABI rows is the crossing itself.
    group.bench_function("JSON in/out, no crossing", |b| {
        b.iter(|| {
            let bytes = serde_json::to_vec(black_box(&call)).unwrap();
            let Call::Act(request) = serde_json::from_slice::<Call>(&bytes).unwrap() else {
                unreachable!()
            };
            let reply = Answer::Decision(direct.act(&request).unwrap());
            let out = serde_json::to_vec(&CallReply::from(Ok(reply))).unwrap();
            black_box(serde_json::from_slice::<CallReply<ActReply>>(&out).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
