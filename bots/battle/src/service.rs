//! Service methods every battle bot answers through `agent.call`.

use std::path::Path;

use serde_json::Value;
use yomi_plugin::protocol::manifest::MethodInfo;
use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::analysis::{analyze, Query};
use crate::cache;

/// The methods, for the manifest; the exploiter also reports its opponent model.
pub fn methods(exploiter: bool) -> Vec<MethodInfo> {
    let mut m = vec![MethodInfo::new(
        "analyze",
        "{parties?: thesis|delta-experiment|[[..],[..]], active: \"A,D\", hp?: [6], turn?, same_type_neutral?, turn_limit?} → {value, row_strategy, col_strategy, matrix, row_actions, col_actions}",
    )];
    if exploiter {
        m.push(MethodInfo::new(
            "opponent_model",
            "{} → {best_model, posterior, log_likelihood, observed} or null before any observation",
        ));
    }
    m
}

/// Dispatches a service call; solved tables are kept in `data_dir` when there is one.
pub fn call(method: &str, params: &Value, data_dir: Option<&Path>) -> Result<Value, ErrorInfo> {
    match method {
        "analyze" => {
            let query = Query::from_params(params)?;
            let rules = query.rules()?;
            let state = query.state(&rules)?;
            analyze(&cache::table(&rules, data_dir), &state)
        }
        _ => Err(ErrorInfo::new(
            ErrorCode::UnknownMethod,
            format!("battle bots have no method `{method}` (known: analyze)"),
        )),
    }
}
