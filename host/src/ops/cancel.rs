//! `cancel`: stops a request of this session by its envelope id, or all of them. The stopped
//! request still gets exactly one reply, with the code `cancelled`; the cancel gets its own reply
//! listing what it stopped. A cancel is answered at once even while another request runs: the
//! connection reads on, spots cancels ([`is_cancel`]) and answers them with [`urgent`].

use yomi_protocol::ops::meta::{Cancel, Stopped, StoppedRequest};
use yomi_protocol::ops::{self as wire};
use yomi_protocol::{ErrorCode, ErrorInfo, Op, Reply, Request, RequestId};

use crate::runtime::requests::{answered, cancelled, Requests, Which};
use crate::session::Session;

/// The requests a cancel names.
fn which(p: &Cancel) -> Result<Which<'_>, ErrorInfo> {
    match (&p.request, p.all) {
        (Some(id), false) => Ok(Which::One(id)),
        (None, true) => Ok(Which::All),
        _ => Err(ErrorInfo::new(
            ErrorCode::InvalidParams,
            "give either `request` (the id of the request to stop) or `\"all\": true`",
        )),
    }
}

/// A cancel while nothing else runs in line: only background requests can be stopped.
pub fn run(session: &Session, p: Cancel) -> Result<Stopped, ErrorInfo> {
    let stopped = session.requests.cancel(&which(&p)?);
    Ok(report(stopped))
}

/// Whether a line is a `cancel` request, to be answered before the lines queued ahead of it.
pub fn is_cancel(text: &str) -> bool {
    // Most lines are not: skip the parse unless the word is there at all.
    text.contains("cancel")
        && Request::parse(text).is_ok_and(|r| Op::parse(&r.op) == Some(Op::Cancel))
}

/// Answers a cancel that arrived while another request runs: stops the running requests it
/// names, and takes the queued ones it names out of the queue (`queued` removes the lines it is
/// told to), each answered `cancelled` at once. Returns every reply to send, the cancel's last.
pub fn urgent(
    requests: &Requests,
    text: &str,
    queued: impl FnOnce(&mut dyn FnMut(&str) -> bool),
) -> Vec<Reply> {
    let request = Request::parse(text).expect("`is_cancel` parsed it");
    let id = request.id.clone();
    let p = match request.params::<Cancel>() {
        Ok(p) => p,
        Err(e) => return vec![refused(id, e)],
    };
    let which = match which(&p) {
        Ok(which) => which,
        Err(e) => return vec![refused(id, e)],
    };
    let mut replies = Vec::new();
    let mut stopped = requests.cancel(&which);
    queued(&mut |line| match Request::parse(line) {
        Ok(r) if which.matches(&r.id) => {
            let op = Op::parse(&r.op).map_or("unknown", Op::name);
            replies.push(answered(op, Some(r.id.clone()), Err(cancelled(op))));
            stopped.push((r.id, op));
            true
        }
        _ => false,
    });
    let report = super::reply::<wire::Cancel>(report(stopped));
    replies.push(answered(Op::Cancel.name(), Some(id), report));
    replies
}

fn refused(id: RequestId, error: ErrorInfo) -> Reply {
    answered(Op::Cancel.name(), Some(id), Err(error))
}

/// The cancel's reply: what it stopped. Empty when the requests it named had already answered.
fn report(stopped: Vec<(RequestId, &'static str)>) -> Stopped {
    let stopped = stopped
        .into_iter()
        .map(|(request, op)| StoppedRequest { request, op: op.to_string() })
        .collect();
    Stopped { stopped }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};
    use tokio_util::sync::CancellationToken;

    use super::*;

    #[test]
    fn cancels_are_spotted_and_other_lines_are_not() {
        assert!(is_cancel(r#"{"id":1,"op":"cancel","request":7}"#));
        assert!(!is_cancel(r#"{"id":1,"op":"agent.act","agent":"cancel"}"#));
        assert!(!is_cancel(r#"{"id":1,"op":"cancel""#), "not JSON");
    }

    #[test]
    fn an_urgent_cancel_stops_running_and_queued_requests_and_says_which() {
        let requests = Requests::new(CancellationToken::new());
        let running = requests.start(&RequestId::Number(1.into()), "agent.call");
        let mut queue = vec![
            r#"{"id":2,"op":"agent.act","agent":"a1"}"#.to_string(),
            r#"{"id":3,"op":"ping"}"#.to_string(),
        ];
        let replies = urgent(&requests, r#"{"id":9,"op":"cancel","all":true}"#, |drop| {
            queue.retain(|line| !drop(line))
        });
        assert!(queue.is_empty() && running.stop.is_cancelled());
        let replies: Vec<Value> =
            replies.iter().map(|r| serde_json::to_value(r).unwrap()).collect();
        assert_eq!(replies[0]["error"]["code"], "cancelled");
        assert_eq!(replies[0]["id"], 2);
        assert_eq!(replies[1]["id"], 3);
        let stopped = &replies[2]["result"]["stopped"];
        assert_eq!(
            stopped,
            &json!([{"request": 1, "op": "agent.call"}, {"request": 2, "op": "agent.act"}, {"request": 3, "op": "ping"}])
        );
    }

    #[test]
    fn a_cancel_names_one_request_or_all() {
        let requests = Requests::new(CancellationToken::new());
        for line in
            [r#"{"id":9,"op":"cancel"}"#, r#"{"id":9,"op":"cancel","request":1,"all":true}"#]
        {
            let replies = urgent(&requests, line, |_| {});
            let reply = serde_json::to_value(&replies[0]).unwrap();
            assert_eq!(reply["error"]["code"], "invalid_params", "{line}");
        }
    }
}
