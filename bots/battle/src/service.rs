//! Service methods every battle bot answers through `agent.call`.

use serde_json::Value;
use yomi_plugin::protocol::manifest::MethodInfo;
use yomi_plugin::{ErrorCode, ErrorInfo};

use crate::analysis::{analyze, Query};
use crate::cache;

/// The methods, for the manifest.
pub fn methods() -> Vec<MethodInfo> {
    vec![MethodInfo::new(
        "analyze",
        "{parties?: thesis|delta-experiment|[[..],[..]], active: \"A,D\", hp?: [6], turn?, same_type_neutral?, turn_limit?} → {value, row_strategy, col_strategy, matrix, row_actions, col_actions}",
    )]
}

/// Dispatches a service call.
pub fn call(method: &str, params: &Value) -> Result<Value, ErrorInfo> {
    match method {
        "analyze" => {
            let query = Query::from_params(params)?;
            let rules = query.rules()?;
            let state = query.state(&rules)?;
            analyze(&cache::table(&rules), &state)
        }
        _ => Err(ErrorInfo::new(ErrorCode::UnknownMethod, format!("battle bots have no method `{method}` (known: analyze)"))),
    }
}
