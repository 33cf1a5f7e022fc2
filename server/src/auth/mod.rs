//! Who is calling: borrower sign-in by one-time code and borrower sessions, and the native shell's hand-over of its
//! session to the web app (`handover`); operators of the console with their roles
//! and sessions (`operators`), and the admins' management of operators (`operator_admin`).

mod handover;
pub mod operator_admin;
pub mod operators;
mod sign_in;

pub use handover::{Exchanged, HANDOVER_TTL_MS};

pub use sign_in::{
    Borrower, CODE_TTL_MS, CodePurpose, DAILY_CODES_PER_PHONE, Delivery, LOGIN_ATTEMPTS_WINDOW_MS,
    LiveSession, MAX_FAILED_ATTEMPTS, RESEND_MS, SESSION_IDLE_MS, SESSION_MAX_AGE_MS,
    SessionWindow, SignInError, SignInService, SignedIn, SignedOut, Throttled, market_code,
    parse_market, phone_limit_keys, unseal_borrower, unseal_phone,
};
