//! The paper's fifteen features of a die sequence (section 5.3), for any length and any number of
//! sides, computed from scratch. [`crate::tracker`] keeps the same numbers up to date under
//! one-position changes; this module is the reference it is tested against.
//!
//! Where the paper's prose is ambiguous, its expected values for n = 100 decide (a Monte Carlo test
//! in `tests/features.rs` checks every one):
//! - F2..F5 windows: length `L = max(1, round(0.3 n))`, starting (0-based) at
//!   `min(floor(s n / 100 + 1/2), n - L)` for `s` in 0, 23, 47, 69 — exactly the paper's 1-30,
//!   24-53, 48-77, 70-99 at n = 100; 1-15, 13-27, 25-39, 36-50 at n = 50.
//! - F7..F9 count overlapping runs (a run of 4 equal faces holds three "2 in a row").
//! - F10 needs no particular order; F11..F15 count a window only when its two end faces are the
//!   repeated face ("両端を含め", counting both ends), with exact multiplicities.

/// Number of features.
pub const COUNT: usize = 15;

/// Feature names, in order.
pub const NAMES: [&str; COUNT] = [
    "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "F13", "F14", "F15",
];

/// The paper's F2..F5 window starts for n = 100 (0-based), scaled with n.
const WINDOW_STARTS_AT_100: [usize; 4] = [0, 23, 47, 69];

/// Longest window any pattern feature looks at (F15).
const MAX_PATTERN: usize = 7;

/// Where the chi-square windows lie for a sequence of length `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub n: usize,
    pub sides: u8,
    /// Length of each F2..F5 window.
    pub window: usize,
    /// 0-based start of each F2..F5 window.
    pub starts: [usize; 4],
}

impl Layout {
    /// The layout for `n` faces of a die with `sides` sides (n >= 1, sides >= 2).
    pub fn new(n: usize, sides: u8) -> Layout {
        let window = ((0.3 * n as f64).round() as usize).clamp(1, n.max(1));
        let starts = WINDOW_STARTS_AT_100
            .map(|s| ((s * n) as f64 / 100.0 + 0.5).floor() as usize)
            .map(|s| s.min(n - window));
        Layout { n, sides, window, starts }
    }

    /// The five chi-square ranges (F1 over everything, then F2..F5) as (start, length).
    pub fn chi_spans(&self) -> [(usize, usize); 5] {
        let w = self.window;
        [
            (0, self.n),
            (self.starts[0], w),
            (self.starts[1], w),
            (self.starts[2], w),
            (self.starts[3], w),
        ]
    }
}

/// Chi-square statistic of face counts over `len` faces from the sum of squared counts:
/// `sum (c - len/k)^2 / (len/k) = k * sum c^2 / len - len`.
pub fn chi_square(sum_sq: i64, len: usize, sides: u8) -> f64 {
    sides as f64 * sum_sq as f64 / len as f64 - len as f64
}

/// Contributions to F6..F15 (as counts, index 0 = F6) of one window `w` of length 2..=7.
/// Each window length feeds different features:
/// - 2: F6 parity change (`12`), F7 two in a row (`33`);
/// - 3: F8 three in a row (`333`);
/// - 4: F9 four in a row (`3333`), F10 two pair (`3434`, `3344`, `3443`), F12 ends X, exactly 3 X (`3133`);
/// - 5: F11 full house with equal ends (`31113`, `31313`), F13 ends X, exactly 3 X (`32133`);
/// - 6: F14 ends X, exactly 4 X (`313233`);
/// - 7: F15 ends X, exactly 4 X (`3313453`).
pub fn window_pattern(w: &[u8], out: &mut [i32; 10]) {
    match w.len() {
        2 => pair(w[0], w[1], out),
        3 => span::<3>(w.try_into().expect("length 3"), out),
        4 => span::<4>(w.try_into().expect("length 4"), out),
        5 => span::<5>(w.try_into().expect("length 5"), out),
        6 => span::<6>(w.try_into().expect("length 6"), out),
        7 => span::<7>(w.try_into().expect("length 7"), out),
        _ => {}
    }
}

/// F6 and F7 of two neighbours.
#[inline(always)]
fn pair(a: u8, b: u8, out: &mut [i32; 10]) {
    out[0] += ((a ^ b) & 1) as i32;
    out[1] += (a == b) as i32;
}

/// The features of one window of length `W` in 3..=7 (see [`window_pattern`]). Only equalities
/// between faces matter here, so a window padded with values that equal nothing counts nothing.
#[inline(always)]
fn span<const W: usize>(w: &[u8; W], out: &mut [i32; 10]) {
    let (first, last) = (w[0], w[W - 1]);
    let ends_count = || w.iter().map(|&f| (f == first) as u32).sum::<u32>();
    match W {
        3 => out[2] += (first == w[1] && first == last) as i32,
        4 => {
            let (a, b, c, d) = (w[0], w[1], w[2], w[3]);
            out[3] += (a == b && b == c && c == d) as i32;
            let two_pair = (a == b && c == d && a != c)
                || (a == c && b == d && a != b)
                || (a == d && b == c && a != b);
            out[4] += two_pair as i32;
            if first == last {
                out[6] += (ends_count() == 3) as i32;
            }
        }
        5 if first == last => {
            let (x, m) = (first, [w[1], w[2], w[3]]);
            let full_house = match ends_count() {
                // XYYYX
                2 => m[0] == m[1] && m[1] == m[2],
                // one more X in the middle, the other two equal: XXYYX, XYXYX, XYYXX
                3 => {
                    (m[0] == x && m[1] == m[2])
                        || (m[1] == x && m[0] == m[2])
                        || (m[2] == x && m[0] == m[1])
                }
                _ => false,
            };
            out[5] += full_house as i32;
            out[7] += (ends_count() == 3) as i32;
        }
        6 if first == last => out[8] += (ends_count() == 4) as i32,
        7 if first == last => out[9] += (ends_count() == 4) as i32,
        _ => {}
    }
}

/// All fifteen features of `seq` (faces 1..=sides), computed from scratch.
pub fn compute(seq: &[u8], sides: u8) -> [f64; COUNT] {
    let layout = Layout::new(seq.len().max(1), sides);
    let mut out = [0.0; COUNT];
    if seq.is_empty() {
        return out;
    }
    for (i, (start, len)) in layout.chi_spans().into_iter().enumerate() {
        let mut counts = vec![0i64; sides as usize + 1];
        for &f in &seq[start..start + len] {
            counts[f as usize] += 1;
        }
        out[i] = chi_square(counts.iter().map(|c| c * c).sum(), len, sides);
    }
    let mut pat = [0i32; 10];
    for w in 2..=MAX_PATTERN {
        for win in seq.windows(w) {
            window_pattern(win, &mut pat);
        }
    }
    for (o, p) in out[5..].iter_mut().zip(pat) {
        *o = p as f64;
    }
    out
}

/// Exact expected value of every feature for a uniform random sequence of length `n` on a die
/// with `sides` sides: `sides - 1` for each chi-square, and (number of windows) x (probability of
/// the pattern in one window) for F6..F15. Used to scale the paper's ranges to other lengths and
/// dice, and as the "theory" column of the reproduction.
pub fn expected(n: usize, sides: u8) -> [f64; COUNT] {
    let k = sides as f64;
    let odd = (sides as usize).div_ceil(2) as f64 / k;
    let windows = |w: usize| n.saturating_sub(w - 1) as f64;
    let choose = |a: f64, b: f64| -> f64 {
        (0..b as usize).fold(1.0, |acc, i| acc * (a - i as f64) / (i as f64 + 1.0))
    };
    let q = (k - 1.0) / k; // a given position is not the repeated face
    let p = 1.0 / k;
    let mut e = [k - 1.0; COUNT];
    e[5] = windows(2) * 2.0 * odd * (1.0 - odd);
    e[6] = windows(2) * p;
    e[7] = windows(3) * p * p;
    e[8] = windows(4) * p.powi(3);
    // Two pair: an unordered pair of faces, 6 orders of XXYY.
    e[9] = windows(4) * choose(k, 2.0) * 6.0 / k.powi(4);
    // Full house with equal ends: X...X holding 3 X (3 orders of the middle, Y any other face) or
    // 2 X (middle YYY).
    e[10] = windows(5) * k * (k - 1.0) * 4.0 / k.powi(5);
    // Ends X and exactly m X: the ends, then m-2 more X among the w-2 middle positions.
    let ends = |w: usize, m: usize| {
        choose((w - 2) as f64, (m - 2) as f64) * p.powi(m as i32 - 1) * q.powi((w - m) as i32)
    };
    e[11] = windows(4) * ends(4, 3);
    e[12] = windows(5) * ends(5, 3);
    e[13] = windows(6) * ends(6, 4);
    e[14] = windows(7) * ends(7, 4);
    e
}

/// Checks that every face of `seq` lies in 1..=sides.
pub fn check_faces(seq: &[u8], sides: u8) -> Result<(), String> {
    match seq.iter().position(|&f| f == 0 || f > sides) {
        Some(i) => Err(format!("face {} at position {} is outside 1..={sides}", seq[i], i + 1)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_match_the_seed_at_100() {
        let l = Layout::new(100, 6);
        assert_eq!(l.window, 30);
        // 1-30, 24-53, 48-77, 70-99 (1-based).
        assert_eq!(l.starts, [0, 23, 47, 69]);
    }

    #[test]
    fn patterns_follow_their_examples() {
        let f = |s: &str| compute(&s.bytes().map(|b| b - b'0').collect::<Vec<_>>(), 6);
        assert_eq!(f("3333")[6..9], [3.0, 2.0, 1.0]);
        assert_eq!(f("3434")[9], 1.0);
        assert_eq!(f("3133")[11], 1.0);
        assert_eq!(f("3313")[11], 1.0);
        assert_eq!(f("31113")[10], 1.0);
        assert_eq!(f("31313")[10], 1.0);
        assert_eq!(f("33133")[10], 0.0);
        assert_eq!(f("33111")[10], 0.0);
        assert_eq!(f("32133")[12], 1.0);
        assert_eq!(f("313233")[13], 1.0);
        assert_eq!(f("3313453")[14], 1.0);
        assert_eq!(f("123456")[5], 5.0);
    }

    #[test]
    fn expected_values_match_the_seed_at_100() {
        let seed = [5.0, 5.0, 5.0, 5.0, 5.0, 49.5, 16.5, 2.7, 0.45, 6.7, 1.5, 4.5, 5.6, 1.8, 2.5];
        for (i, (e, s)) in expected(100, 6).iter().zip(seed).enumerate() {
            assert!((e - s).abs() / s < 0.03, "F{}: {e} vs {s}", i + 1);
        }
    }
}
