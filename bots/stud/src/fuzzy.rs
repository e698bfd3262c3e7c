//! Fuzzy sets and Mamdani inference (min implication, max aggregation, centroid), with the paper's
//! membership functions as reconstructed in spec §3.2.3, §3.3.1 and §3.6.1.

/// A trapezoid: 0 up to `a`, rising to 1 at `b`, 1 until `c`, falling to 0 at `d`. Infinite
/// ends make shoulders (a = b = −∞ is 1 on the whole left).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mf {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
}

const INF: f64 = f64::INFINITY;

impl Mf {
    pub const fn trap(a: f64, b: f64, c: f64, d: f64) -> Mf {
        Mf { a, b, c, d }
    }

    pub const fn tri(a: f64, b: f64, c: f64) -> Mf {
        Mf { a, b, c: b, d: c }
    }

    /// 1 up to `c`, falling to 0 at `d`.
    pub const fn left(c: f64, d: f64) -> Mf {
        Mf { a: -INF, b: -INF, c, d }
    }

    /// 0 up to `a`, rising to 1 at `b` and staying there.
    pub const fn right(a: f64, b: f64) -> Mf {
        Mf { a, b, c: INF, d: INF }
    }

    pub fn mu(&self, x: f64) -> f64 {
        if x < self.b {
            if x <= self.a {
                0.0
            } else {
                (x - self.a) / (self.b - self.a)
            }
        } else if x <= self.c {
            1.0
        } else if x >= self.d {
            0.0
        } else {
            (self.d - x) / (self.d - self.c)
        }
    }
}

/// Hand strength (expect, estimated/actual strength): Weak, Strong on [−1, 1].
pub const WEAK: Mf = Mf::left(-0.5, 0.5);
pub const STRONG: Mf = Mf::right(-0.5, 0.5);
/// Normalised bet and turn on [0, 1]: Few/Early, Middle, Much/End.
pub const LOW: Mf = Mf::left(0.0, 0.5);
pub const MID: Mf = Mf::tri(0.0, 0.5, 1.0);
pub const HIGH: Mf = Mf::right(0.5, 1.0);
pub const THREE: [Mf; 3] = [LOW, MID, HIGH];
/// Drop intention (Fig. 3.7) as [ZO, PS1, PS2, PB1, PB2] on [0, 1]. The drawing is lost (its OCR
/// keeps the axis, ticks every 0.2, and the labels on two lines: 「ZO PS1 PS2」 and 「PB1PB2」),
/// so three placements are offered (option `drop_sets`).
///
/// `shape` (the default): the shape §3.3.1's three sentences give the *computed* intention.
/// Early in the game the player 「劣勢という推定でもあまりドロップはしない」 (hardly drops even
/// when judged inferior): near zero at turns 1–2; in the middle game
/// 「相手の賭け金が多くなってきたらドロップする意図を少しもつ」 (a little intention as the
/// opponent's bets grow): small, and rising with the bet; at the end 「ドロップする意図を強く持つ」
/// (a strong intention). Every set is a triangle of the same half-width (ZO its right half at 0)
/// so that no set outweighs another in the centroid by its width alone: ZO, PS1, PS2 side by side
/// at the small end (0, 0.05, 0.1), PB1 and PB2 at the big end (0.8, 1). The intention is then
/// 0.016 at turn 1, 0.04–0.065 at turn 2, 0.05 (no bet yet) rising to 0.1 (bets of half the pot
/// or more) at turn 4, and 0.8–0.97 at turn 7 (`drop_intention_has_the_shape_of_the_words`).
pub const DROP_SHAPE: [Mf; 5] = [
    Mf::left(0.0, 0.05),
    Mf::tri(0.0, 0.05, 0.1),
    Mf::tri(0.05, 0.1, 0.15),
    Mf::tri(0.7, 0.8, 0.9),
    Mf::right(0.9, 1.0),
];
/// `words`: where the set names put each set (the previous default): ZO at zero, PS1/PS2 small
/// and PB1/PB2 big, but PS2 three times wider than ZO. As soon as the Middle turn fires (turn 2)
/// PS2's area outweighs ZO's in the centroid: 0.016 at turn 1, then 0.13–0.16 at turn 2 already
/// and 0.07–0.2 at turn 4, nearly flat in the bet once it is non-zero.
pub const DROP_WORDS: [Mf; 5] = [
    Mf::left(0.0, 0.05),
    Mf::tri(0.0, 0.05, 0.15),
    Mf::tri(0.05, 0.2, 0.35),
    Mf::tri(0.5, 0.75, 1.0),
    Mf::right(0.75, 1.0),
];
/// `even`: five evenly spaced triangles (the spec's first reconstruction): about 0.08 at turn 1
/// and 0.25–0.5 at turn 4, more eager than the words.
pub const DROP_EVEN: [Mf; 5] = [
    Mf::left(0.0, 0.25),
    Mf::tri(0.0, 0.25, 0.5),
    Mf::tri(0.25, 0.5, 0.75),
    Mf::tri(0.5, 0.75, 1.0),
    Mf::right(0.75, 1.0),
];
/// Modification amounts (Fig. 3.10): N, Z, P on [−10, 10].
pub const N: Mf = Mf::left(-10.0, 0.0);
pub const Z: Mf = Mf::tri(-10.0, 0.0, 10.0);
pub const P: Mf = Mf::right(0.0, 10.0);
pub const NZP: [Mf; 3] = [N, Z, P];

/// Grid points of the numeric centroid (spec §3.7).
const GRID: usize = 2001;

/// Mamdani output: the centroid over `[lo, hi]` of the max of the consequents clipped at their
/// firing strengths; `empty` when no rule fires.
pub fn centroid(lo: f64, hi: f64, clipped: &[(Mf, f64)], empty: f64) -> f64 {
    let (mut area, mut moment) = (0.0, 0.0);
    for i in 0..GRID {
        let x = lo + (hi - lo) * i as f64 / (GRID - 1) as f64;
        let m = clipped.iter().map(|(mf, w)| mf.mu(x).min(*w)).fold(0.0, f64::max);
        area += m;
        moment += m * x;
    }
    if area > 0.0 {
        moment / area
    } else {
        empty
    }
}

/// The adjustment degree's Mamdani output when the Positive set is clipped at `wp` and the
/// Negative at `wn` (right triangles on [0, 1] and [−1, 0]), in closed form: this runs up to 256
/// times per estimation.
pub fn adjustment_centroid(wp: f64, wn: f64) -> f64 {
    // ∫ min(y, w) dy and ∫ y·min(y, w) dy over [0, 1].
    let area = |w: f64| w - w * w / 2.0;
    let moment = |w: f64| w * w * w / 3.0 + w * (1.0 - w * w) / 2.0;
    let a = area(wp) + area(wn);
    if a > 0.0 {
        (moment(wp) - moment(wn)) / a
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memberships_partition_and_saturate() {
        for x in [-1.0, -0.5, 0.0, 0.3, 1.0] {
            assert!((WEAK.mu(x) + STRONG.mu(x) - 1.0).abs() < 1e-12);
        }
        assert_eq!((WEAK.mu(-0.7), STRONG.mu(0.7)), (1.0, 1.0));
        for u in [0.0, 0.2, 0.5, 0.8, 1.0] {
            assert!((LOW.mu(u) + MID.mu(u) + HIGH.mu(u) - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn closed_form_matches_the_grid() {
        let pos = Mf::right(0.0, 1.0);
        let neg = Mf::left(-1.0, 0.0);
        for (wp, wn) in [(1.0, 0.0), (0.3, 0.7), (0.5, 0.5), (0.2, 0.0)] {
            let grid = centroid(-1.0, 1.0, &[(pos, wp), (neg, wn)], 0.0);
            assert!((grid - adjustment_centroid(wp, wn)).abs() < 1e-3, "{wp} {wn}");
        }
        assert!((adjustment_centroid(1.0, 0.0) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(adjustment_centroid(0.4, 0.4), 0.0);
    }
}
