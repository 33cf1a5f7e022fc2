//! Infrastructure that every capability uses and that knows no capability: the keys and their ciphers (`crypto`), the
//! business clock (`clock`), the bounds on costly work (`bounds`), the one request limiter with its list of limits
//! (`limits`), the file store that keeps uploaded files' bytes (`files`), the senders that get a code to a phone
//! (`sms`) and a receipt to a device (`push`) through an outside party's HTTP API (`gateway`), and the metrics
//! (`metrics`). The database is `store/`, the outside parties `providers/`.

pub mod bounds;
pub mod clock;
pub mod crypto;
pub mod csv;
pub mod files;
pub mod gateway;
pub mod limits;
pub mod metrics;
pub mod push;
pub mod sms;
