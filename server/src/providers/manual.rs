//! The default payout provider (`manual`): finance has made the transfer in the bank's portal and types its
//! reference, which is recorded as it is.

use super::{PayoutDone, PayoutProvider, PayoutRequest};
use crate::error::{Error, FieldErrors, FieldProblem};

/// The longest bank reference an operator may type.
pub const MAX_BANK_REFERENCE: usize = 64;

/// Records finance's own transfer by its bank reference.
pub struct ManualPayout;

impl PayoutProvider for ManualPayout {
    fn name(&self) -> &'static str {
        "manual"
    }

    fn pay(&self, request: &PayoutRequest<'_>) -> Result<PayoutDone, Error> {
        let reference = check_bank_reference(request.bank_reference)?;
        Ok(PayoutDone {
            provider: self.name(),
            bank_reference: reference,
        })
    }
}

/// Checks a bank's reference as finance types it (a payout, a refund): 4 to 64 letters, digits and `- / _ .`,
/// trimmed; a field error on `bankReference` otherwise.
pub fn check_bank_reference(text: Option<&str>) -> Result<String, Error> {
    let reference = text.map(str::trim).unwrap_or_default();
    let problem = if reference.is_empty() {
        Some(FieldProblem::required())
    } else if reference.chars().count() > MAX_BANK_REFERENCE {
        Some(FieldProblem::too_long(MAX_BANK_REFERENCE))
    } else if reference.len() < 4
        || !reference
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-/_.".contains(&b))
    {
        Some(FieldProblem::new("field.bank_reference"))
    } else {
        None
    };
    match problem {
        Some(problem) => Err(Error::Validation(FieldErrors::one(
            "bankReference",
            problem,
        ))),
        None => Ok(reference.to_owned()),
    }
}
