//! Per-client-address rate limits (governor's keyed GCRA limiter).

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::Error;

/// Allows `per_minute` requests a minute from one address, as a burst that refills evenly.
#[derive(Clone)]
pub struct AddressLimiter {
    limiter: Arc<DefaultKeyedRateLimiter<IpAddr>>,
}

impl AddressLimiter {
    pub fn per_minute(per_minute: NonZeroU32) -> Self {
        Self {
            limiter: Arc::new(RateLimiter::keyed(Quota::per_minute(per_minute))),
        }
    }

    pub fn check(&self, addr: IpAddr) -> Result<(), Error> {
        self.limiter.check_key(&addr).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            Error::RateLimited {
                retry_after_secs: wait.as_secs() + 1,
            }
        })
    }

    /// Forgets addresses whose allowance is full again, so the map does not grow without bound.
    pub fn forget_idle(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }
}
