//! A δ-Nash player's personality (paper §5.3, 5.4.2, 6.1–6.2): how it misjudges win rates (a noise
//! model and its size δ), how many noisy equilibria it averages (n), and its habit (a bias on a
//! class of its own actions, of strength α, by eq. (6.1)). [`Personality::mix`] turns the true
//! win-rate matrix of a position into the mixed strategy such a player samples from.

use rand::Rng;
use rand_distr::StandardNormal;
use serde::Serialize;
use yomi_plugin::api::opt;
use yomi_plugin::rng::standard_normal;
use yomi_plugin::{ErrorCode, ErrorInfo, OptionSpec, Options};

use crate::engine::{Action, Engine, State};
use crate::lp::{self, Matrix, MAX};

/// The four noise models of paper §5.4.2 (p is the true entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Noise {
    /// U(−δ, δ).
    Uniform,
    /// N(0, σ) with σ = δ/√3, the uniform's variance.
    Normal,
    /// U(−δ(1+4p(1−p)), δ(1+4p(1−p))): larger misjudgement of close positions.
    UniformVariable,
    /// N(0, σ) with σ = δ(1+4p(1−p)) (spec U19: the paper's second argument is a deviation).
    NormalVariable,
}

pub const NOISES: [&str; 4] = ["uniform", "normal", "uniform-variable", "normal-variable"];

impl Noise {
    pub fn parse(name: &str) -> Result<Noise, ErrorInfo> {
        Ok(match name {
            "uniform" => Noise::Uniform,
            "normal" => Noise::Normal,
            "uniform-variable" => Noise::UniformVariable,
            "normal-variable" => Noise::NormalVariable,
            _ => {
                return Err(invalid(format!(
                    "unknown noise model `{name}` (known: {})",
                    NOISES.join(", ")
                )))
            }
        })
    }

    pub fn name(self) -> &'static str {
        NOISES[self as usize]
    }

    /// One draw of the noise added to an entry whose true value is `p`.
    fn sample(self, delta: f64, p: f64, draws: Draws, rng: &mut impl Rng) -> f64 {
        let variable = delta * (1.0 + 4.0 * p * (1.0 - p));
        let mut normal = || match draws {
            Draws::Recorded => standard_normal(rng),
            Draws::Fast => rng.sample::<f64, _>(StandardNormal),
        };
        match self {
            Noise::Uniform => delta * (2.0 * rng.gen::<f64>() - 1.0),
            Noise::UniformVariable => variable * (2.0 * rng.gen::<f64>() - 1.0),
            Noise::Normal => delta / 3f64.sqrt() * normal(),
            Noise::NormalVariable => variable * normal(),
        }
    }
}

/// How the noise's normal values are drawn. A decision draws them by Box–Muller, one value a
/// call, so a recorded seed replays the matches and reproduction rows made with it; a policy
/// estimate may draw the same law any way, and takes the ziggurat (`rand_distr`), which needs
/// neither a logarithm nor a cosine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Draws {
    Recorded,
    Fast,
}

/// The four biases of paper §6.2, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bias {
    None,
    /// Every move.
    Attack,
    /// Every switch (and, for replacements, every candidate).
    Switch,
    /// Moves with multiplier ≥ 1.5 against the opponent's active.
    EffectiveAttack,
    /// Moves with multiplier 0.5 against the opponent's active.
    IneffectiveAttack,
}

pub const BIASES: [&str; 5] =
    ["none", "attack", "switch", "effective-attack", "ineffective-attack"];

impl Bias {
    pub fn parse(name: &str) -> Result<Bias, ErrorInfo> {
        Ok(match name {
            "none" => Bias::None,
            "attack" => Bias::Attack,
            "switch" => Bias::Switch,
            "effective-attack" => Bias::EffectiveAttack,
            "ineffective-attack" => Bias::IneffectiveAttack,
            _ => {
                return Err(invalid(format!(
                    "unknown bias `{name}` (known: {})",
                    BIASES.join(", ")
                )))
            }
        })
    }

    pub fn name(self) -> &'static str {
        BIASES[self as usize]
    }

    /// Whether `side`'s action `a` in `s` is of the favoured class.
    pub fn applies(self, engine: &Engine, s: &State, side: usize, a: Action) -> bool {
        match (self, a) {
            (Bias::None, _) => false,
            (Bias::Attack, Action::Move(_)) => true,
            (Bias::Switch, Action::Switch(_)) => true,
            (Bias::EffectiveAttack, Action::Move(m)) => engine.multiplier(s, side, m) >= 1.5,
            (Bias::IneffectiveAttack, Action::Move(m)) => engine.multiplier(s, side, m) == 0.5,
            _ => false,
        }
    }
}

/// Which win rate eq. (6.1) corrects (issue: the paper's figure 6.1–6.2 bias rates are larger than
/// ours, so both readings are measured in REPRODUCTION.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BiasOn {
    /// The noise-perturbed p_δ inside each of the n noisy matrices, before each is solved: the
    /// the paper's words, 「ノイズを付与した利得 p_δ に、さらにバイアスによる補正をかけた誤認知利得行列を作成する」.
    Noisy,
    /// The true p, then the noise: every noisy matrix starts from one biased matrix. The paper's
    /// "もとの勝率" (the original win rate) read as the true win rate.
    True,
}

pub const BIAS_ON: [&str; 2] = ["noisy", "true"];

impl BiasOn {
    pub fn parse(name: &str) -> Result<BiasOn, ErrorInfo> {
        match name {
            "noisy" => Ok(BiasOn::Noisy),
            "true" => Ok(BiasOn::True),
            _ => Err(invalid(format!("unknown bias_on `{name}` (known: {})", BIAS_ON.join(", ")))),
        }
    }

    pub fn name(self) -> &'static str {
        BIAS_ON[self as usize]
    }
}

fn invalid(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::InvalidOption, message)
}

/// The largest |α|: eq. (6.1) moves a win rate of 1/2 by 6α, so at 0.2 the bias outweighs any
/// difference in win rate there. Bounded, as `delta` is, so that `yomi fit` can fit it.
pub const ALPHA_BOUND: f64 = 0.2;

/// The options that make a personality, shared by `delta-nash` and `exploiter`.
pub fn options() -> Vec<OptionSpec> {
    vec![
        OptionSpec::choice("noise", "uniform-variable", &NOISES, "how win rates are misjudged (paper §5.4.2); the paper recommends uniform-variable"),
        OptionSpec::float("delta", 0.15, Some(0.0), Some(1.0), "noise size δ from 0 to 1 (0 is Nash, 1 misjudges a win rate by up to the whole range; the paper's human-like range is 0.1-0.2)"),
        OptionSpec::int("n", 10, Some(1), Some(1000), "noisy equilibria averaged per decision"),
        OptionSpec::choice("bias", "none", &BIASES, "favoured action class (paper §6.2)"),
        OptionSpec::float("alpha", 0.0, Some(-ALPHA_BOUND), Some(ALPHA_BOUND), "bias strength α of eq. (6.1) from -0.2 to 0.2 (the paper's are 0.03 and 0.06; at 0.2 a close position's win rate moves by 1.2, past the whole range); negative avoids the class"),
        OptionSpec::choice("bias_on", "noisy", &BIAS_ON, "which win rate eq. (6.1) corrects: noisy = each noisy matrix's p_δ (the paper's words), true = the true p before the noise"),
        OptionSpec::bool("clamp_bias", true, "clamp p to [0,1] inside eq. (6.1)'s factor, so a noisy p_δ outside [0,1] gets the small variation (about α) the paper says p_δ near 0 or 1 gets (the default); off: the formula applied to any p_δ"),
    ]
}

/// A complete personality (as JSON, each option by its name).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Personality {
    pub noise: Noise,
    pub delta: f64,
    pub n: usize,
    pub bias: Bias,
    pub alpha: f64,
    pub bias_on: BiasOn,
    pub clamp_bias: bool,
}

/// A personality as a key of a map: each option, the floats by their bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PersonalityKey {
    noise: Noise,
    delta: u64,
    n: usize,
    bias: Bias,
    alpha: u64,
    bias_on: BiasOn,
    clamp_bias: bool,
}

/// The mixed strategy a personality plays in one decision, with what went into it.
#[derive(Debug, Clone)]
pub struct Mix {
    pub probs: Vec<f64>,
    /// Which of the actions the bias touched.
    pub biased: Vec<bool>,
    /// The equilibrium strategy of each noisy (and biased) matrix; `probs` is their mean.
    pub samples: Vec<Vec<f64>>,
}

impl Personality {
    /// The personality as a key: equal keys are the same options (every field is named here,
    /// so a new option cannot be left out).
    pub fn key(&self) -> PersonalityKey {
        let Personality { noise, delta, n, bias, alpha, bias_on, clamp_bias } = *self;
        let (delta, alpha) = (delta.to_bits(), alpha.to_bits());
        PersonalityKey { noise, delta, n, bias, alpha, bias_on, clamp_bias }
    }

    /// The exact Nash player.
    pub const NASH: Personality = Personality {
        noise: Noise::Uniform,
        delta: 0.0,
        n: 1,
        bias: Bias::None,
        alpha: 0.0,
        bias_on: BiasOn::Noisy,
        clamp_bias: true,
    };

    pub fn from_options(options: &Options) -> Result<Personality, ErrorInfo> {
        let p = Personality {
            noise: Noise::parse(opt::str(options, "noise")?)?,
            delta: opt::f64(options, "delta")?,
            n: opt::i64(options, "n")?.max(0) as usize,
            bias: Bias::parse(opt::str(options, "bias")?)?,
            alpha: opt::f64(options, "alpha")?,
            bias_on: BiasOn::parse(opt::str(options, "bias_on")?)?,
            clamp_bias: opt::bool(options, "clamp_bias")?,
        };
        p.validate()?;
        Ok(p)
    }

    pub fn validate(&self) -> Result<(), ErrorInfo> {
        if !(0.0..=1.0).contains(&self.delta) {
            return Err(invalid(format!("delta must be from 0 to 1, got {}", self.delta)));
        }
        if !(-ALPHA_BOUND..=ALPHA_BOUND).contains(&self.alpha) {
            return Err(invalid(format!(
                "alpha must be from -{ALPHA_BOUND} to {ALPHA_BOUND}, got {}",
                self.alpha
            )));
        }
        if self.n == 0 {
            return Err(invalid("n must be at least 1".into()));
        }
        Ok(())
    }

    /// Without noise or bias every sample is the same equilibrium; one solve is enough.
    pub fn samples(&self) -> usize {
        if self.delta == 0.0 && (self.alpha == 0.0 || self.bias == Bias::None) {
            1
        } else {
            self.n
        }
    }

    /// Eq. (6.1): p' = p + α(1 + 20p(1−p)).
    fn biased(&self, p: f64) -> f64 {
        let q = if self.clamp_bias { p.clamp(0.0, 1.0) } else { p };
        p + self.alpha * (1.0 + 20.0 * q * (1.0 - q))
    }

    /// One perceived entry: true win rate `p` with the noise `e` (a draw of
    /// [`Noise::sample`] for `p`), corrected by eq. (6.1) where `hit`, at the stage [`BiasOn`]
    /// names.
    fn perceive(&self, p: f64, hit: bool, e: f64) -> f64 {
        let base = if hit && self.bias_on == BiasOn::True { self.biased(p) } else { p };
        let noisy = base + e;
        if hit && self.bias_on == BiasOn::Noisy {
            self.biased(noisy)
        } else {
            noisy
        }
    }

    /// One draw of the noise of every entry of `w` (row by row, the order `act` draws them).
    pub fn noise(&self, w: &Matrix, draws: Draws, rng: &mut impl Rng) -> [[f64; MAX]; MAX] {
        let mut e = [[0.0; MAX]; MAX];
        for (i, row) in e.iter_mut().enumerate().take(w.rows) {
            for (j, x) in row.iter_mut().enumerate().take(w.cols) {
                *x = self.noise.sample(self.delta, w.w[i][j], draws, rng);
            }
        }
        e
    }

    /// The equilibrium strategy of `w` perceived with the noise `e` (times `sign`, ±1: the
    /// noise models are symmetric, so −e is a draw as likely as e) and the bias on the rows
    /// `biased`.
    pub fn noisy_equilibrium(
        &self,
        w: &Matrix,
        biased: &[bool],
        e: &[[f64; MAX]; MAX],
        sign: f64,
    ) -> [f64; MAX] {
        let mut noisy = *w;
        for ((row, &hit), (truth, e)) in noisy.w.iter_mut().zip(biased).zip(w.w.iter().zip(e)) {
            for ((x, p), e) in row.iter_mut().zip(truth).zip(e).take(w.cols) {
                *x = self.perceive(*p, hit, sign * e);
            }
        }
        lp::solve(&noisy).row
    }

    /// Which of `actions` the bias touches.
    pub fn biased_rows(
        &self,
        engine: &Engine,
        s: &State,
        side: usize,
        actions: &[Action],
    ) -> Vec<bool> {
        actions.iter().map(|a| self.bias.applies(engine, s, side, *a)).collect()
    }

    /// The replacement a player picks from the candidates' true `values` perceived with the
    /// noise `e` (one draw per candidate) times `sign`, as [`Personality::noisy_equilibrium`].
    pub fn noisy_replacement(&self, values: &[f64], e: &[f64], sign: f64) -> usize {
        let favoured = self.bias == Bias::Switch;
        let mut best = (0, f64::NEG_INFINITY);
        for (k, (v, e)) in values.iter().zip(e).enumerate() {
            let p = self.perceive(*v, favoured, sign * e);
            if p > best.1 {
                best = (k, p);
            }
        }
        best.0
    }

    /// One draw of the noise of each replacement candidate's value.
    pub fn replacement_noise(&self, values: &[f64], draws: Draws, rng: &mut impl Rng) -> Vec<f64> {
        values.iter().map(|v| self.noise.sample(self.delta, *v, draws, rng)).collect()
    }

    /// The δ-Nash strategy for `side` in a turn: `w` is the true matrix in the player's own view
    /// (its actions as rows, its win rates), `actions` its actions in row order.
    pub fn mix(
        &self,
        engine: &Engine,
        s: &State,
        side: usize,
        w: &Matrix,
        actions: &[Action],
        rng: &mut impl Rng,
    ) -> Mix {
        let biased = self.biased_rows(engine, s, side, actions);
        let mut probs = vec![0.0; w.rows];
        let mut samples = Vec::with_capacity(self.samples());
        for _ in 0..self.samples() {
            let e = self.noise(w, Draws::Recorded, rng);
            let row = self.noisy_equilibrium(w, &biased, &e, 1.0);
            for (acc, x) in probs.iter_mut().zip(&row[..w.rows]) {
                *acc += x;
            }
            samples.push(row[..w.rows].to_vec());
        }
        let k = samples.len() as f64;
        probs.iter_mut().for_each(|x| *x /= k);
        Mix { probs, biased, samples }
    }

    /// The replacement choice after a faint (spec U18): each candidate's true value (in the
    /// player's view) is perceived with noise, and with the switch bias if any, the best one
    /// taken, and the n choices averaged into a mix.
    pub fn replacement_mix(&self, values: &[f64], rng: &mut impl Rng) -> Mix {
        let favoured = self.bias == Bias::Switch;
        let mut probs = vec![0.0; values.len()];
        let mut samples = Vec::with_capacity(self.samples());
        for _ in 0..self.samples() {
            let e = self.replacement_noise(values, Draws::Recorded, rng);
            let best = self.noisy_replacement(values, &e, 1.0);
            probs[best] += 1.0;
            let mut one = vec![0.0; values.len()];
            one[best] = 1.0;
            samples.push(one);
        }
        let k = samples.len() as f64;
        probs.iter_mut().for_each(|x| *x /= k);
        Mix { probs, biased: vec![favoured; values.len()], samples }
    }
}

/// The true win-rate matrix of a turn in `side`'s own view: its actions as rows, its win rates.
pub fn own_view(w: &Matrix, side: usize) -> Matrix {
    if side == 0 {
        *w
    } else {
        w.transposed_complement()
    }
}

/// Samples an index from a mixed strategy.
pub fn sample_index(probs: &[f64], rng: &mut impl Rng) -> usize {
    let mut x: f64 = rng.gen::<f64>() * probs.iter().sum::<f64>();
    for (k, p) in probs.iter().enumerate() {
        if x < *p {
            return k;
        }
        x -= p;
    }
    probs.iter().rposition(|p| *p > 0.0).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;
    use yomi_plugin::rng::seeded;

    #[test]
    fn noise_has_the_stated_spread() {
        let mut rng = seeded(5);
        let models = [
            (Noise::Uniform, 0.5, 0.1 / 3f64.sqrt()),
            (Noise::Normal, 0.5, 0.1 / 3f64.sqrt()),
            (Noise::UniformVariable, 0.5, 0.2 / 3f64.sqrt()),
            (Noise::NormalVariable, 0.5, 0.2),
            (Noise::NormalVariable, 0.0, 0.1),
        ];
        let both = [Draws::Recorded, Draws::Fast];
        for ((noise, p, sd), draws) in models.into_iter().flat_map(|m| both.map(|d| (m, d))) {
            let xs: Vec<f64> = (0..40_000).map(|_| noise.sample(0.1, p, draws, &mut rng)).collect();
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
            assert!(
                mean.abs() < 0.01 && (var.sqrt() / sd - 1.0).abs() < 0.03,
                "{noise:?} {draws:?} p={p}: sd {} vs {sd}",
                var.sqrt()
            );
        }
    }

    #[test]
    fn eq_6_1_shifts_by_alpha_at_the_ends_and_6_alpha_at_a_half() {
        let p = Personality { alpha: 0.03, bias: Bias::Attack, ..Personality::NASH };
        assert!((p.biased(0.0) - 0.03).abs() < 1e-12);
        assert!((p.biased(0.5) - (0.5 + 6.0 * 0.03)).abs() < 1e-12);
        // Unclamped, the formula flips the bias far outside [0, 1]; clamped (the default) it
        // shifts by α there, as at the ends.
        assert!((p.biased(-0.2) - (-0.2 + 0.03)).abs() < 1e-12);
        assert!(Personality { clamp_bias: false, ..p }.biased(-0.2) < -0.2);
    }

    #[test]
    fn biases_pick_the_right_rows() {
        let e = Engine::new(Rules::preset("thesis").unwrap());
        let s = e.initial([0, 2]); // A vs F: grass ×1.5 (effective), fire ×1.0, electric ×0.5
        let rows = e.legal(&s, 0);
        let hits =
            |b: Bias| rows.as_slice().iter().map(|a| b.applies(&e, &s, 0, *a)).collect::<Vec<_>>();
        assert_eq!(hits(Bias::Attack), [true, true, true, false, false]);
        assert_eq!(hits(Bias::Switch), [false, false, false, true, true]);
        assert_eq!(hits(Bias::EffectiveAttack), [true, false, false, false, false]);
        assert_eq!(hits(Bias::IneffectiveAttack), [false, false, true, false, false]);
    }

    #[test]
    fn bad_personalities_are_rejected() {
        let bad = [
            Personality { delta: -0.1, ..Personality::NASH },
            Personality { delta: f64::NAN, ..Personality::NASH },
            Personality { delta: 1.5, ..Personality::NASH },
            Personality { alpha: f64::INFINITY, ..Personality::NASH },
            Personality { alpha: f64::NAN, ..Personality::NASH },
            Personality { alpha: 0.3, ..Personality::NASH },
            Personality { alpha: -0.21, ..Personality::NASH },
            Personality { n: 0, ..Personality::NASH },
        ];
        for p in bad {
            assert_eq!(p.validate().unwrap_err().code, ErrorCode::InvalidOption);
        }
        assert!(
            Personality { alpha: -0.05, ..Personality::NASH }.validate().is_ok(),
            "a negative α is an aversion"
        );
        assert!(Noise::parse("cauchy").unwrap_err().message.contains("unknown noise model"));
        assert!(Bias::parse("defence").unwrap_err().message.contains("unknown bias"));
    }
}
