use yomi_dice::ranges::Ranges;
use yomi_dice::search::{minimise, uniform, Params, Method};
use yomi_dice::tracker::Tracker;
use yomi_plugin::rng::seeded;
fn main() {
    let r = Ranges::table2();
    let mut rng = seeded(3);
    let (mut fails, mut steps) = (0, 0);
    for _ in 0..2000 {
        // a natural prefix of 25 then 25 fresh
        let (seq, _) = yomi_dice::search::generate(50, 6, &r, &Params::default(), &mut rng);
        let mut s = seq[25..].to_vec(); s.extend(uniform(25, 6, &mut rng));
        let mut t = Tracker::new(s, 6);
        let mut rr = r.clone();
        for (i, (st, len)) in t.layout().chi_spans().into_iter().enumerate() { if st + len <= 25 { rr.gamma[i] = 0.0; } }
        let rep = minimise(&mut t, 25, &rr, &Params { method: Method::Local, ..Params::default() }, &mut rng);
        if rep.err > 0.0 { fails += 1 } steps += rep.steps;
    }
    eprintln!("fails {fails}/2000 steps {}", steps as f64 / 2000.0);
}
