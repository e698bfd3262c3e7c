//! Service methods every battle bot answers through `agent.call`.

use serde_json::Value;
use yomi_plugin::protocol::manifest::MethodInfo;
use yomi_plugin::typed::to_json;
use yomi_plugin::{ErrorCode, ErrorInfo, OptionSpec};

use crate::rules::{MAX_TURN_LIMIT, TURN_LIMIT};

use crate::analysis::{analyze, Query};
use crate::cache::Tables;

/// The methods, for the manifest; the exploiter also reports its opponent model.
pub fn methods(exploiter: bool) -> Vec<MethodInfo> {
    let mut m = vec![MethodInfo::new(
        "analyze",
        "{parties?: thesis|delta-experiment|[[..],[..]], active: \"A,D\", hp?: [6], turn?, same_type_neutral?, turn_limit?} → {value, row_strategy, col_strategy, matrix, row_actions, col_actions}",
    )
    .params(vec![
        OptionSpec::int("turn", 1, Some(1), Some(MAX_TURN_LIMIT as i64), "the position's turn"),
        OptionSpec::int("turn_limit", TURN_LIMIT as i64, Some(2), Some(MAX_TURN_LIMIT as i64), "the turn at which an undecided game is judged"),
        OptionSpec::bool("same_type_neutral", false, "spec U2's damage variant"),
    ])];
    if exploiter {
        m.push(MethodInfo::new(
            "opponent_model",
            "{} → {best_model, posterior, log_likelihood, observed} or null before any observation",
        ));
    }
    m
}

/// Dispatches a service call; tables come through the calling agent's `tables`.
pub fn call(method: &str, params: &Value, tables: &mut Tables) -> Result<Value, ErrorInfo> {
    match method {
        "analyze" => {
            let query = Query::from_params(params)?;
            let rules = query.rules()?;
            let state = query.state(&rules)?;
            let table = tables.table(&rules)?;
            Ok(to_json(&analyze(&table, &state)?))
        }
        _ => Err(ErrorInfo::new(
            ErrorCode::UnknownMethod,
            format!("battle bots have no method `{method}` (known: analyze)"),
        )),
    }
}
