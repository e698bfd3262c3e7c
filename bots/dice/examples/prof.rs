use yomi_dice::tracker::Tracker;
use yomi_dice::search::uniform;
use yomi_plugin::rng::seeded;
use rand::Rng;
fn main() {
    let mut rng = seeded(5);
    let s = uniform(50, 6, &mut rng);
    let t0 = std::time::Instant::now();
    let mut acc = 0.0;
    for _ in 0..10000 { let t = Tracker::new(s.clone(), 6); acc += t.features()[3]; }
    eprintln!("new {:?}", t0.elapsed() / 10000);
    let mut t = Tracker::new(s.clone(), 6);
    let t0 = std::time::Instant::now();
    for _ in 0..100000 { let p = t.propose(rng.gen_range(0..50), rng.gen_range(1..=6)); acc += p.features[7]; }
    eprintln!("propose {:?} {acc}", t0.elapsed() / 100000);
}
