//! One entry point for the three samplers, so the service, the CLI and the tests choose a method
//! by name and get the same kind of answer.

use rand::Rng;

use crate::enumerate::enumerate;
use crate::exact::ExactSampler;
use crate::mh::{self, MhConfig};
use crate::model::{invalid, Assignment, Problem};
use yomi_plugin::ErrorInfo;

/// How to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Dynamic programming over remaining role counts: exact, any size (the default).
    Exact,
    /// Metropolis–Hastings with swap proposals (the paper's continuation).
    Mh(MhConfig),
    /// List every assignment (the paper's reference; small games only).
    Enumerate,
}

/// Names accepted for [`Method`], in the order the `sampler` option lists them.
pub const METHOD_NAMES: [&str; 3] = ["exact", "mh", "enumerate"];

impl Method {
    pub fn parse(name: &str, mh: MhConfig) -> Result<Method, ErrorInfo> {
        match name {
            "exact" => Ok(Method::Exact),
            "mh" => Ok(Method::Mh(mh)),
            "enumerate" => Ok(Method::Enumerate),
            other => {
                Err(invalid(format!("unknown sampler `{other}` (expected exact, mh or enumerate)")))
            }
        }
    }
}

/// Draws `count` assignments. MH draws them from one chain (burn-in once, then thinning).
pub fn draw(
    problem: &Problem,
    method: Method,
    count: usize,
    rng: &mut impl Rng,
) -> Result<Vec<Assignment>, ErrorInfo> {
    match method {
        Method::Exact => {
            let sampler = ExactSampler::new(problem)?;
            Ok((0..count).map(|_| sampler.draw(rng)).collect())
        }
        Method::Mh(config) => mh::sample(problem, config, count, rng),
        Method::Enumerate => {
            let e = enumerate(problem)?;
            Ok((0..count).map(|_| e.draw(rng)).collect())
        }
    }
}
