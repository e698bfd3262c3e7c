//! A game's ladder: every preset's Elo against a fixed reference pool (the random bot at 0), as
//! `yomi ladder GAME` measures it, checked in beside the bot crate (`ladder.json`) and embedded in
//! the manifest ([`crate::declare::Declaration::ladder`]); and the `strength` option that maps a
//! target Elo to a bot's strength knob through the measured curve, as Stockfish's
//! `UCI_LimitStrength`/`UCI_Elo` anchor its levels to a rating list.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use yomi_protocol::{
    ActReply, ActRequest, ErrorCode, ErrorInfo, OptionSpec, Options, PolicyEntry, Preset,
};

use crate::api::{opt, Agent};
use crate::call::{ActText, GameOver};

/// A measured ladder (the file `yomi ladder GAME --out ladder.json` writes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ladder {
    /// The game the ratings are of.
    pub game: String,
    /// The command that measured it, to regenerate it.
    #[serde(default)]
    pub command: String,
    /// The bot rated 0 that every rating is relative to.
    #[serde(default)]
    pub reference: String,
    /// One rating per entry of the pool.
    #[serde(default)]
    pub rungs: Vec<Rung>,
    /// The measured curves of the bots' strength knobs.
    #[serde(default)]
    pub knobs: Vec<Knob>,
}

/// One rated entry: a bot with its defaults, a preset, or a knob setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rung {
    /// `plugin/bot`.
    pub bot: String,
    /// The preset it played, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// Options it set besides the preset (a knob's value; a strength target).
    #[serde(default, skip_serializing_if = "Options::is_empty")]
    pub options: Options,
    /// Elo, the reference at 0.
    pub elo: f64,
    /// 95 % interval.
    pub elo_ci95: [f64; 2],
    /// Games it played.
    pub games: u64,
}

/// A bot's strength knob and its measured curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knob {
    /// `plugin/bot`.
    pub bot: String,
    /// The option the `strength` option sets.
    pub option: String,
    /// `[knob value, Elo]` as measured, in the order of the values.
    pub points: Vec<[f64; 2]>,
}

/// The option that turns the strength limit on (Stockfish's `UCI_LimitStrength`).
pub const LIMIT: &str = "limit_strength";
/// The target Elo (Stockfish's `UCI_Elo`).
pub const STRENGTH: &str = "strength";

impl Ladder {
    /// Reads a checked-in ladder; a malformed file is the plugin author's mistake, said plainly.
    pub fn parse(text: &str) -> Result<Ladder, ErrorInfo> {
        serde_json::from_str(text).map_err(|e| {
            ErrorInfo::new(
                ErrorCode::Internal,
                format!("the plugin's ladder.json is unreadable: {e}"),
            )
        })
    }

    /// The rating of `plugin/bot` with `preset` and nothing else set.
    pub fn preset(&self, bot: &str, preset: &str) -> Option<&Rung> {
        self.rungs
            .iter()
            .find(|r| r.bot == bot && r.preset.as_deref() == Some(preset) && r.options.is_empty())
    }

    /// Writes the measured ratings onto `bot`'s presets.
    pub fn rate_presets(&self, bot: &str, presets: &mut [Preset]) {
        for preset in presets {
            if let Some(rung) = self.preset(bot, &preset.name) {
                preset.elo = Some(rung.elo);
                preset.elo_ci95 = Some(rung.elo_ci95);
            }
        }
    }

    /// The strength curve of `plugin/bot`, if it has one.
    pub fn curve(&self, bot: &str) -> Option<Curve> {
        self.knobs.iter().find(|k| k.bot == bot).and_then(Curve::new)
    }
}

/// A knob's curve made monotone: Elo never rises where the measurement's overall trend falls
/// (pool-adjacent-violators), so every target Elo has one knob value.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The option it sets.
    pub option: String,
    /// `(value, elo)` by increasing value, Elo monotone.
    points: Vec<(f64, f64)>,
}

impl Curve {
    fn new(knob: &Knob) -> Option<Curve> {
        let mut points: Vec<(f64, f64)> = knob.points.iter().map(|p| (p[0], p[1])).collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        if points.len() < 2 {
            return None;
        }
        let falling = points[points.len() - 1].1 < points[0].1;
        let elos: Vec<f64> = points.iter().map(|p| if falling { -p.1 } else { p.1 }).collect();
        let fitted = isotonic(&elos);
        for (p, e) in points.iter_mut().zip(fitted) {
            p.1 = if falling { -e } else { e };
        }
        Some(Curve { option: knob.option.clone(), points })
    }

    /// Lowest and highest Elo the knob reaches.
    pub fn range(&self) -> (f64, f64) {
        let (a, b) = (self.points[0].1, self.points[self.points.len() - 1].1);
        (a.min(b), a.max(b))
    }

    /// The knob value whose Elo is `target`, by linear interpolation between measured points;
    /// a target beyond the range gets the range's end (the option's bounds refuse it first).
    pub fn value_for(&self, target: f64) -> f64 {
        let (lo, hi) = self.range();
        let target = target.clamp(lo, hi);
        for w in self.points.windows(2) {
            let ((v0, e0), (v1, e1)) = (w[0], w[1]);
            if (e0.min(e1)..=e0.max(e1)).contains(&target) {
                if e0 == e1 {
                    return v0;
                }
                return v0 + (target - e0) / (e1 - e0) * (v1 - v0);
            }
        }
        self.points[0].0
    }

    /// The `limit_strength` and `strength` options (the target's bounds are the curve's range).
    pub fn options(&self) -> Vec<OptionSpec> {
        let (lo, hi) = self.range();
        let (lo, hi) = (lo.ceil() as i64, hi.floor() as i64);
        vec![
            OptionSpec::bool(LIMIT, false, &format!("play at the Elo `strength` asks for (yomi ladder's scale, the random bot at 0) by setting `{}` from the measured curve; other options as given", self.option)),
            OptionSpec::int(STRENGTH, (lo + hi) / 2, Some(lo), Some(hi), "target Elo when limit_strength is on"),
        ]
    }

    /// `options` with the knob set from the target, when the limit is on (an option set without
    /// `limit_strength`, as a bot's own tests build one from its options alone, is not limited).
    pub fn apply(&self, options: &Options) -> Result<Options, ErrorInfo> {
        let mut out = options.clone();
        if options.contains_key(LIMIT) && opt::bool(options, LIMIT)? {
            let value = self.value_for(opt::f64(options, STRENGTH)?);
            out.insert(self.option.clone(), serde_json::json!(value));
        }
        Ok(out)
    }
}

/// A bot with a strength limit: every option set passes through its [`Curve`] first.
pub struct Limited {
    /// The bot.
    pub inner: Box<dyn Agent>,
    /// Its measured knob.
    pub curve: Curve,
}

impl Agent for Limited {
    fn act(&mut self, request: &ActRequest) -> Result<ActReply, ErrorInfo> {
        self.inner.act(request)
    }

    fn act_text(&mut self, request: &ActText) -> Result<ActReply, ErrorInfo> {
        self.inner.act_text(request)
    }

    fn policy(&self, request: &ActRequest) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        self.inner.policy(request)
    }

    fn policy_text(&self, request: &ActText) -> Result<Vec<PolicyEntry>, ErrorInfo> {
        self.inner.policy_text(request)
    }

    fn act_with_policy_text(
        &mut self,
        request: &ActText,
    ) -> Result<(ActReply, Vec<PolicyEntry>), ErrorInfo> {
        self.inner.act_with_policy_text(request)
    }

    fn observe(&mut self, event: &Value) -> Result<(), ErrorInfo> {
        self.inner.observe(event)
    }

    fn game_over(&mut self, over: &GameOver) -> Result<(), ErrorInfo> {
        self.inner.game_over(over)
    }

    fn configure(&mut self, options: &Options) -> Result<(), ErrorInfo> {
        self.inner.configure(&self.curve.apply(options)?)
    }

    fn call(&mut self, method: &str, params: &Value) -> Result<Value, ErrorInfo> {
        self.inner.call(method, params)
    }
}

/// The non-decreasing sequence closest to `y` in least squares (pool adjacent violators).
fn isotonic(y: &[f64]) -> Vec<f64> {
    let mut blocks: Vec<(f64, usize)> = Vec::new();
    for &v in y {
        blocks.push((v, 1));
        while blocks.len() > 1 && blocks[blocks.len() - 2].0 > blocks[blocks.len() - 1].0 {
            let (b, nb) = blocks.pop().expect("two blocks");
            let (a, na) = blocks.pop().expect("two blocks");
            blocks.push(((a * na as f64 + b * nb as f64) / (na + nb) as f64, na + nb));
        }
    }
    blocks.into_iter().flat_map(|(v, n)| std::iter::repeat_n(v, n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn curve(points: &[[f64; 2]]) -> Curve {
        Curve::new(&Knob { bot: "b/x".into(), option: "delta".into(), points: points.to_vec() })
            .unwrap()
    }

    #[test]
    fn a_falling_curve_is_made_monotone_and_inverted() {
        // δ 0.1 measured a little above δ 0.05: noise; the fit pools them.
        let c = curve(&[[0.0, 400.0], [0.1, 330.0], [0.05, 320.0], [0.4, 100.0]]);
        assert_eq!(c.range(), (100.0, 400.0));
        assert_eq!(c.value_for(400.0), 0.0);
        assert_eq!(c.value_for(100.0), 0.4);
        assert!((c.value_for(250.0) - (0.1 + 75.0 / 225.0 * 0.3)).abs() < 1e-9);
        assert_eq!(c.value_for(1000.0), 0.0, "beyond the strongest: the strongest");
        let values: Vec<f64> = (100..=400).step_by(10).map(|e| c.value_for(e as f64)).collect();
        assert!(values.windows(2).all(|w| w[1] <= w[0]), "higher target, smaller δ: {values:?}");
    }

    #[test]
    fn strength_options_set_the_knob_only_when_limited() {
        let c = curve(&[[0.0, 50.0], [1.0, 250.0]]);
        let specs = c.options();
        assert_eq!(specs[1].kind, yomi_protocol::OptionKind::Int { min: Some(50), max: Some(250) });
        let mut options: Options =
            [("delta", json!(0.3)), (LIMIT, json!(false)), (STRENGTH, json!(150))]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
        assert_eq!(c.apply(&options).unwrap()["delta"], json!(0.3));
        options.insert(LIMIT.into(), json!(true));
        assert_eq!(c.apply(&options).unwrap()["delta"], json!(0.5));
        options.remove(LIMIT);
        assert_eq!(c.apply(&options).unwrap()["delta"], json!(0.3), "no limit option: no limit");
    }

    #[test]
    fn presets_get_their_ratings() {
        let ladder = Ladder::parse(
            r#"{"game":"g","rungs":[{"bot":"p/b","preset":"strong","elo":120.5,"elo_ci95":[100,140],"games":40},
                {"bot":"p/b","preset":"strong","options":{"delta":0.3},"elo":1,"elo_ci95":[0,2],"games":40}]}"#,
        )
        .unwrap();
        let mut presets =
            vec![Preset::new("strong", "", json!({})), Preset::new("weak", "", json!({}))];
        ladder.rate_presets("p/b", &mut presets);
        assert_eq!((presets[0].elo, presets[0].elo_ci95), (Some(120.5), Some([100.0, 140.0])));
        assert_eq!(presets[1].elo, None);
        assert!(Ladder::parse("{").unwrap_err().message.contains("ladder.json"));
    }
}
