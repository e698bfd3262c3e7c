//! Who gets a connection slot: at most `--max-connections` clients at once, and at most
//! `--max-connections-per-ip` of them from one address, so one host cannot hold every slot
//! with idle connections (a token holder pinging just often enough to stay under the idle
//! timeout would otherwise lock everyone else out).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use yomi_protocol::{ErrorCode, ErrorInfo};

use crate::runtime::config::ServeConfig;

/// The slots of one listener.
#[derive(Debug, Clone)]
pub struct Admission {
    slots: Arc<Semaphore>,
    max: usize,
    per_ip: usize,
    by_ip: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// A client's slot; dropping it frees the slot.
#[derive(Debug)]
pub struct Ticket {
    _slot: OwnedSemaphorePermit,
    ip: IpAddr,
    by_ip: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Admission {
    /// `max` slots in all, at most `per_ip` from one address (0: no cap per address).
    pub fn new(max: usize, per_ip: usize) -> Admission {
        Admission { slots: Arc::new(Semaphore::new(max)), max, per_ip, by_ip: Arc::default() }
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
        let slot = self.slots.clone().try_acquire_owned().map_err(|_| full_error(self.max))?;
        by_ip.insert(ip, held + 1);
        Ok(Ticket { _slot: slot, ip, by_ip: self.by_ip.clone() })
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
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
        // Four slots held in all: the server is full for everyone.
        let full = admission.admit(ip(4)).unwrap_err();
        assert!(
            full.message.contains("the server is full (--max-connections 4)"),
            "{}",
            full.message
        );
        drop((b, again, c, d));
        assert!(admission.by_ip.lock().unwrap().is_empty(), "every count returns to zero");
    }

    #[test]
    fn zero_per_address_means_only_the_total_counts() {
        let admission = Admission::new(3, 0);
        let held: Vec<_> = (0..3).map(|_| admission.admit(ip(1)).unwrap()).collect();
        assert!(admission.admit(ip(1)).unwrap_err().message.contains("server is full"));
        drop(held);
    }
}
