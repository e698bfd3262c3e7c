use yomi_dice::ranges::Ranges;
use yomi_dice::search::{generate, Params, Method};
use yomi_plugin::rng::seeded;
fn main() {
    let r = Ranges::table2();
    for m in [Method::Local, Method::Auto] {
        let p = Params { method: m, ..Params::default() };
        let mut rng = seeded(5);
        let (mut steps, mut ok, mut init) = (0usize, 0, 0.0);
        let n = 3000;
        let t = std::time::Instant::now();
        for _ in 0..n { let (_, rep) = generate(50, 6, &r, &p, &mut rng); steps += rep.steps; if rep.err == 0.0 { ok += 1 } init += rep.initial_err; }
        eprintln!("{m:?} steps {} ok {} init {} time/seq {:?}", steps as f64 / n as f64, ok as f64 / n as f64, init / n as f64, t.elapsed() / n);
    }
}
