//! Who gets a connection slot: at most `--max-connections` clients at once, and at most
//! `--max-connections-per-ip` of them from one address, so one host cannot hold every slot
//! with idle connections (a token holder pinging just often enough to stay under the idle
//! timeout would otherwise lock everyone else out).
//!
//! Connections that have not shown a token (strangers, and every plain HTTP connection) hold
//! their slot only while the server has room: a newcomer to a full server takes the slot of the
//! oldest stranger, which is closed, as nginx and HAProxy drop idle connections under pressure.
//! So a few addresses holding every slot with silent connections lock out nobody who has a
//! token, and `/healthz` is answered.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use yomi_protocol::{ErrorCode, ErrorInfo};

use crate::runtime::config::ServeConfig;

/// The slots of one listener.
#[derive(Debug, Clone)]
pub struct Admission {
    slots: Arc<Semaphore>,
    max: usize,
    per_ip: usize,
    by_ip: Arc<Mutex<HashMap<IpAddr, usize>>>,
    /// The connections that have not shown a token, oldest first.
    strangers: Arc<Mutex<VecDeque<Stranger>>>,
    numbers: Arc<AtomicU64>,
}

/// A connection's slot, which a newcomer takes over when it evicts the connection.
type Slot = Arc<Mutex<Option<OwnedSemaphorePermit>>>;

/// A connection that has not shown a token: what closes it, and its slot.
#[derive(Debug)]
struct Stranger {
    number: u64,
    evicted: CancellationToken,
    slot: Slot,
}

/// A client's slot; dropping it frees the slot.
#[derive(Debug)]
pub struct Ticket {
    /// Empty once a newcomer took it over (this connection is then being closed).
    _slot: Slot,
    ip: IpAddr,
    by_ip: Arc<Mutex<HashMap<IpAddr, usize>>>,
    number: u64,
    /// Cancelled when a newcomer takes this connection's slot (it had shown no token).
    evicted: CancellationToken,
    strangers: Arc<Mutex<VecDeque<Stranger>>>,
}

impl Admission {
    /// `max` slots in all, at most `per_ip` from one address (0: no cap per address).
    pub fn new(max: usize, per_ip: usize) -> Admission {
        Admission {
            slots: Arc::new(Semaphore::new(max)),
            max,
            per_ip,
            by_ip: Arc::default(),
            strangers: Arc::default(),
            numbers: Arc::default(),
        }
    }

    /// The slots a server's settings give each of its listeners.
    pub fn of(config: &ServeConfig) -> Admission {
        Admission::new(config.max_connections, config.max_connections_per_ip)
    }

    /// A slot for a client from `ip`, or the error to tell it why there is none.
    pub fn admit(&self, ip: IpAddr) -> Result<Ticket, ErrorInfo> {
        let mut by_ip = self.by_ip.lock().unwrap_or_else(|p| p.into_inner());
        let held = by_ip.get(&ip).copied().unwrap_or(0);
        if self.per_ip > 0 && held >= self.per_ip {
            return Err(ErrorInfo::new(
                ErrorCode::LimitExceeded,
                format!(
                    "{ip} already holds {held} connections (--max-connections-per-ip {}); close one or try again later",
                    self.per_ip
                ),
            ));
        }
        let permit = match self.slots.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => self.evict_oldest_stranger().ok_or_else(|| full_error(self.max))?,
        };
        by_ip.insert(ip, held + 1);
        let number = self.numbers.fetch_add(1, Ordering::Relaxed);
        let (evicted, slot) = (CancellationToken::new(), Arc::new(Mutex::new(Some(permit))));
        let stranger = Stranger { number, evicted: evicted.clone(), slot: slot.clone() };
        self.strangers.lock().unwrap_or_else(|p| p.into_inner()).push_back(stranger);
        let (by_ip, strangers) = (self.by_ip.clone(), self.strangers.clone());
        Ok(Ticket { _slot: slot, ip, by_ip, number, evicted, strangers })
    }

    /// Closes the oldest connection that has shown no token and hands over its slot; `None`
    /// when every connection has shown one.
    fn evict_oldest_stranger(&self) -> Option<OwnedSemaphorePermit> {
        let mut strangers = self.strangers.lock().unwrap_or_else(|p| p.into_inner());
        while let Some(stranger) = strangers.pop_front() {
            stranger.evicted.cancel();
            let permit = stranger.slot.lock().unwrap_or_else(|p| p.into_inner()).take();
            if permit.is_some() {
                return permit;
            }
        }
        None
    }
}

impl Ticket {
    /// The connection has shown a token: its slot is its own until it ends.
    pub fn trust(&self) {
        let mut strangers = self.strangers.lock().unwrap_or_else(|p| p.into_inner());
        strangers.retain(|stranger| stranger.number != self.number);
    }

    /// Cancelled when a newcomer to a full server takes this stranger's slot.
    pub fn evicted(&self) -> CancellationToken {
        self.evicted.clone()
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.trust();
        let mut by_ip = self.by_ip.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(held) = by_ip.get_mut(&self.ip) {
            *held -= 1;
            if *held == 0 {
                by_ip.remove(&self.ip);
            }
        }
    }
}

/// The error a client of a full server gets before it is closed.
pub fn full_error(max_connections: usize) -> ErrorInfo {
    ErrorInfo::new(
        ErrorCode::LimitExceeded,
        format!("the server is full (--max-connections {max_connections}); try again later"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    #[test]
    fn one_address_gets_at_most_its_share_and_others_still_get_in() {
        let admission = Admission::new(4, 2);
        let a = [admission.admit(ip(1)).unwrap(), admission.admit(ip(1)).unwrap()];
        let third = admission.admit(ip(1)).unwrap_err();
        assert!(third.message.contains("--max-connections-per-ip 2"), "{}", third.message);
        let b = admission.admit(ip(2)).unwrap();
        drop(a);
        let again = admission.admit(ip(1)).unwrap();
        let c = admission.admit(ip(3)).unwrap();
        let d = admission.admit(ip(3)).unwrap();
        for held in [&b, &again, &c, &d] {
            held.trust();
        }
        // Four slots held in all, every one by a client that showed its token: full for everyone.
        let full = admission.admit(ip(4)).unwrap_err();
        assert!(
            full.message.contains("the server is full (--max-connections 4)"),
            "{}",
            full.message
        );
        drop((b, again, c, d));
        assert!(admission.by_ip.lock().unwrap().is_empty(), "every count returns to zero");
        assert!(admission.strangers.lock().unwrap().is_empty(), "and no stranger is left");
    }

    #[test]
    fn a_newcomer_to_a_full_server_takes_the_oldest_strangers_slot() {
        let admission = Admission::new(3, 0);
        let trusted = admission.admit(ip(1)).unwrap();
        trusted.trust();
        let old = admission.admit(ip(2)).unwrap();
        let young = admission.admit(ip(2)).unwrap();
        let newcomer = admission.admit(ip(3)).expect("the oldest stranger makes room");
        assert!(old.evicted().is_cancelled(), "the oldest stranger is closed");
        assert!(!young.evicted().is_cancelled() && !trusted.evicted().is_cancelled());
        newcomer.trust();
        young.trust();
        // The evicted one handed its slot over: the server stays at three, every one trusted.
        let full = admission.admit(ip(4)).unwrap_err();
        assert!(full.message.contains("the server is full"), "{}", full.message);
        drop(old);
        let full = admission.admit(ip(4)).unwrap_err();
        assert!(full.message.contains("the server is full"), "closing it frees nothing more");
        drop(young);
        admission.admit(ip(4)).expect("a slot once a client leaves");
    }

    #[test]
    fn zero_per_address_means_only_the_total_counts() {
        let admission = Admission::new(3, 0);
        let held: Vec<_> = (0..3).map(|_| admission.admit(ip(1)).unwrap()).collect();
        held.iter().for_each(Ticket::trust);
        assert!(admission.admit(ip(1)).unwrap_err().message.contains("server is full"));
        drop(held);
    }
}
