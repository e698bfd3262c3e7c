//! The fuzzy player's decision before its random draws: the player builds a [`Plan`], `act`
//! samples it ([`Plan::sample`]) and `policy` sums it ([`Plan::distribution`]), so the policy is
//! the player's real behaviour. The draws are the player's recorded ones, in their order, so a
//! seed plays the same match it always has.

use rand::seq::SliceRandom;
use rand::Rng;
use serde::Serialize;
use yomi_plugin::rng::{box_muller, Rng as SeededRng};

use crate::cards::Card;
use crate::payload::Action;
use crate::view::{bet_action, View};

/// A decision and its reasons.
#[derive(Debug, Clone)]
pub struct Decided {
    pub action: Action,
    pub explain: Explain,
}

/// Why the player decided as it did (`explain`): the reasons of its kind of decision, then the
/// estimation behind every decision. A field a decision has no word on is left out;
/// `drop_intention` and `potential` are written as null when the decision weighed none.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Explain {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reveal_reason: Option<&'static str>,
    /// Each hole card with the potential its reveal would show.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub potentials: Option<Vec<Potential>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop_reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drop_intention: Option<Option<f64>>,
    /// Whether the bet is a bluff, and the potential it shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bluff: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub potential: Option<Option<f64>>,
    /// The bet parameter (3.6) after its noise, and the bounds it scales.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<[u64; 2]>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimated>,
}

/// A hole card and the potential its reveal shows.
#[derive(Debug, Clone, Serialize)]
pub struct Potential {
    pub card: Card,
    pub potential: f64,
}

/// The superiority estimation behind a decision (spec §3.2).
#[derive(Debug, Clone, Serialize)]
pub struct Estimated {
    pub result: f64,
    pub expect: f64,
    pub infer: f64,
    pub p: f64,
    pub com: f64,
    pub hum_expect: f64,
    /// The rules that fired, with their strength and tendency value.
    pub fired: Vec<Fired>,
    pub superior: bool,
}

/// One fired rule.
#[derive(Debug, Clone, Serialize)]
pub struct Fired {
    pub rule: String,
    pub strength: f64,
    pub tendency: f64,
}

/// A decision whose random steps are still to be drawn.
#[derive(Debug, Clone)]
pub enum Plan {
    /// No draw.
    Sure(Decided),
    /// The fuzzy drop: a uniform draw at or under `chance` plays `drop`, otherwise `then`.
    DropDraw { chance: f64, drop: Decided, then: Box<Plan> },
    /// A bet of `lower + a·(upper − lower)` rounded down, `a` = `centre` plus normal noise of
    /// deviation `noise` (none drawn when `None`) clamped to [0, 1], then capped at `cap`.
    Bet {
        lower: u64,
        upper: u64,
        centre: f64,
        noise: Option<f64>,
        cap: Option<u64>,
        explain: Explain,
    },
    /// Reveals one of `cards` at random, after a draw among `discarded` whose result is not used
    /// (the tie among the strongest-looking cards, drawn before the player finds it cannot bluff).
    Pick { discarded: Vec<Card>, cards: Vec<Card>, explain: Explain },
    /// Slow play: the weakest-looking card with chance `weakest`, else the second weakest;
    /// ties in potential broken at random.
    SlowPlay { potentials: Vec<(Card, f64)>, weakest: f64, explain: Explain },
}

/// The bet amount for `a` in [0, 1] between `lower` and `upper`.
fn amount(lower: u64, upper: u64, a: f64) -> u64 {
    (lower as f64 + a * (upper - lower) as f64).floor() as u64
}

/// The standard normal distribution function.
fn phi(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// The chance of each amount of a [`Plan::Bet`] before its cap: the noise puts `a` in the
/// amount's slice of [0, 1], the clamp giving the ends everything beyond them.
fn amount_chances(lower: u64, upper: u64, centre: f64, noise: Option<f64>) -> Vec<(u64, f64)> {
    let span = upper - lower;
    match noise.filter(|sd| *sd > 0.0 && span > 0) {
        None => vec![(amount(lower, upper, centre.clamp(0.0, 1.0)), 1.0)],
        Some(sd) => {
            // The distribution function at each slice's lower edge, the first slice's at −∞.
            let below = |k: u64| match k {
                0 => 0.0,
                k => phi((k as f64 / span as f64 - centre) / sd),
            };
            let mut low = below(0);
            (0..=span)
                .map(|k| {
                    let high = if k == span { 1.0 } else { below(k + 1) };
                    let chance = (lower + k, high - low);
                    low = high;
                    chance
                })
                .collect()
        }
    }
}

fn reveal(card: Card, explain: &Explain) -> Decided {
    Decided { action: Action::Reveal { reveal: card }, explain: explain.clone() }
}

/// The cards of `potentials` whose potential is the lowest, and those of the next lowest.
fn two_lowest(potentials: &[(Card, f64)]) -> (Vec<Card>, Vec<Card>) {
    let lowest = |among: &mut dyn Iterator<Item = &(Card, f64)>| -> Vec<Card> {
        let items: Vec<&(Card, f64)> = among.collect();
        let min = items.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        items.iter().filter(|p| p.1 == min).map(|p| p.0).collect()
    };
    let first = lowest(&mut potentials.iter());
    let second = lowest(&mut potentials.iter().filter(|p| !first.contains(&p.0)));
    (first, second)
}

impl Plan {
    /// Draws the plan's random steps from `rng`.
    pub fn sample(self, view: &View, rng: &mut SeededRng) -> Decided {
        match self {
            Plan::Sure(d) => d,
            Plan::DropDraw { chance, drop, then } => {
                if rng.gen::<f64>() <= chance {
                    drop
                } else {
                    then.sample(view, rng)
                }
            }
            Plan::Bet { lower, upper, centre, noise, cap, mut explain } => {
                let noise = noise.map_or(0.0, |sd| {
                    let u1 = rng.gen::<f64>().max(f64::MIN_POSITIVE);
                    box_muller(u1, rng.gen()) * sd
                });
                let a = (centre + noise).clamp(0.0, 1.0);
                let amount =
                    cap.map_or(amount(lower, upper, a), |c| amount(lower, upper, a).min(c));
                explain.a = Some(a);
                explain.bounds = Some([lower, upper]);
                Decided { action: bet_action(view, amount), explain }
            }
            Plan::Pick { discarded, cards, explain } => {
                let _ = discarded.choose(rng);
                reveal(*cards.choose(rng).unwrap_or(&cards[0]), &explain)
            }
            Plan::SlowPlay { mut potentials, weakest, explain } => {
                potentials.shuffle(rng);
                potentials.sort_by(|a, b| a.1.total_cmp(&b.1));
                let first = rng.gen::<f64>() < weakest || potentials.len() < 2;
                reveal(if first { potentials[0].0 } else { potentials[1].0 }, &explain)
            }
        }
    }

    /// How many bet amounts [`Plan::distribution`] would list (1 for a plan without a bet).
    pub fn amounts(&self) -> u64 {
        match self {
            Plan::DropDraw { then, .. } => then.amounts(),
            Plan::Bet { lower, upper, noise: Some(sd), .. } if *sd > 0.0 => {
                upper.saturating_sub(*lower).saturating_add(1)
            }
            _ => 1,
        }
    }

    /// Every action the plan can play with its chance (equal actions merged by the kit).
    pub fn distribution(&self, view: &View) -> Vec<(Action, f64)> {
        let mut out = Vec::new();
        self.spread(view, 1.0, &mut out);
        out
    }

    fn spread(&self, view: &View, weight: f64, out: &mut Vec<(Action, f64)>) {
        let share = |cards: &[Card], w: f64, out: &mut Vec<(Action, f64)>| {
            let each = w / cards.len() as f64;
            out.extend(cards.iter().map(|&reveal| (Action::Reveal { reveal }, each)));
        };
        match self {
            Plan::Sure(d) => out.push((d.action, weight)),
            Plan::DropDraw { chance, drop, then } => {
                let c = chance.clamp(0.0, 1.0);
                out.push((drop.action, weight * c));
                then.spread(view, weight * (1.0 - c), out);
            }
            Plan::Bet { lower, upper, centre, noise, cap, .. } => {
                for (amount, p) in amount_chances(*lower, *upper, *centre, *noise) {
                    let amount = cap.map_or(amount, |c| amount.min(c));
                    out.push((bet_action(view, amount), weight * p));
                }
            }
            Plan::Pick { cards, .. } => share(cards, weight, out),
            Plan::SlowPlay { potentials, weakest, .. } => {
                let (first, second) = two_lowest(potentials);
                if first.len() >= 2 || second.is_empty() {
                    // Both the weakest and the second weakest are a random one of the lowest.
                    share(&first, weight, out);
                } else {
                    let w = weakest.clamp(0.0, 1.0);
                    share(&first, weight * w, out);
                    share(&second, weight * (1.0 - w), out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amount_chances_sum_to_one_and_follow_the_noise() {
        let chances = amount_chances(10, 30, 0.5, Some(0.3));
        let total: f64 = chances.iter().map(|c| c.1).sum();
        assert!((total - 1.0).abs() < 1e-12, "{total}");
        // Centred: the middle amount is the likeliest inner one, the ends hold the clamped tails.
        let p = |k: u64| chances.iter().find(|c| c.0 == k).unwrap().1;
        assert!(p(20) > p(15) && p(20) > p(25));
        assert!((p(10) - phi(-0.5 / 0.3 + 1.0 / 20.0 / 0.3)).abs() < 1e-12);
        assert!((p(30) - (1.0 - phi(0.5 / 0.3))).abs() < 1e-12);
        assert_eq!(amount_chances(10, 30, 0.5, None), vec![(20, 1.0)]);
        assert_eq!(amount_chances(10, 30, 1.7, Some(0.0)), vec![(30, 1.0)]);
        assert_eq!(amount_chances(7, 7, 0.2, Some(0.3)), vec![(7, 1.0)]);
    }
}
