//! Typed settings: defaults, then an optional TOML file, then `KILAT_*` environment variables (`__` nests).

use std::net::SocketAddr;
use std::path::Path;

use anyhow::{Context, bail};
use kilat_domain::Market;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The defaults, with a comment on every setting.
pub const DEFAULTS: &str = include_str!("defaults.toml");

/// Everything the server reads at start-up. The README lists every field.
#[derive(Debug, Clone, Deserialize)]
pub struct Settings {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// `sqlite://…` (created and migrated on start) or `postgres://…`.
    pub database_url: SecretString,
    /// `development` or `production`.
    pub mode: Mode,
    /// 64 hex digits; derives the keys for PII encryption and keyed hashes. Required in production.
    pub secret_key: Option<SecretString>,
    pub sms: SmsSettings,
    /// How payment receipts reach the borrower's device as a push (`[push]`).
    pub push: PushSettings,
    /// Largest number of pooled database connections; 0 chooses by database (see `pool_size`).
    pub database_max_connections: u32,
    /// HTTP worker threads, each with its own runtime and socket; 0 means one per CPU core.
    pub workers: usize,
    /// How many reverse proxies of ours sit in front, each appending the address it saw to `X-Forwarded-For`: the
    /// client is the Nth address from the right. 0 ignores the header (the peer is the client).
    pub trusted_proxy_hops: u32,
    /// The earlier name of `trusted_proxy_hops = 1`, still read: `true` means one proxy when no hops are set.
    pub trust_forwarded_for: bool,
    /// The origin browsers use for the site, e.g. `https://kilat.example`, when a proxy in front rewrites `Host`;
    /// unsafe API requests from any other origin are refused. Unset, the request's own `Host` decides.
    pub public_origin: Option<String>,
    /// Let development mode listen on a non-loopback address, where anybody who reaches it can read every sign-in
    /// code in the development outbox.
    pub allow_public_listen_in_development: bool,
    pub log: LogSettings,
    /// The Prometheus scrape endpoint (`[metrics]`).
    pub metrics: MetricsSettings,
    pub contact: ContactSettings,
    /// The request limits sized by the deployment (`[limits]`; the whole list is `crate::infra::limits::Limits`).
    pub limits: LimitSettings,
    /// How much costly work (image decodes, password hashes) runs at once (`[bounds]`).
    pub bounds: BoundSettings,
    pub telemetry: TelemetrySettings,
    /// How long a deleted account's loan and transaction records are kept, per market (`[kept_records.in]`,
    /// `[kept_records.id]`).
    pub kept_records: KeptRecordsSettings,
    /// Finance's payouts per market (`[payouts.in]`, `[payouts.id]`): the maker-checker threshold.
    pub payouts: PayoutSettings,
    pub site: SiteSettings,
    /// Where borrowers pay, per market (`[payments.in]`, `[payments.id]`).
    pub payments: PaymentSettings,
    /// Where uploaded files (complaint images) are kept.
    pub files: FileSettings,
    /// The money rules that are data, not code (`[caps]`): Indonesia's OJK cap table and the shortest cooling-off.
    pub caps: CapSettings,
    /// Each market's public holidays (`[calendar.holidays]`), which deadlines in working days skip.
    pub calendar: CalendarSettings,
}

/// The calendar the working-day deadlines are counted on (`[calendar]`).
#[derive(Debug, Clone, Deserialize)]
pub struct CalendarSettings {
    pub holidays: MarketHolidays,
}

/// Each market's public holidays as written in the settings: `YYYY-MM-DD`, sorted, no duplicates.
#[derive(Debug, Clone, Deserialize)]
pub struct MarketHolidays {
    #[serde(rename = "in", default)]
    pub india: Vec<String>,
    #[serde(rename = "id", default)]
    pub indonesia: Vec<String>,
}

/// Each market's public holidays, parsed and checked: what `kilat_domain::calendar`'s working days skip.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holidays {
    india: Vec<time::Date>,
    indonesia: Vec<time::Date>,
}

impl Holidays {
    /// The market's holidays, sorted.
    pub fn of(&self, market: Market) -> &[time::Date] {
        match market {
            Market::India => &self.india,
            Market::Indonesia => &self.indonesia,
        }
    }

    /// True when the market has at least one holiday in `year`.
    pub fn covers_year(&self, market: Market, year: i32) -> bool {
        self.of(market).iter().any(|d| d.year() == year)
    }

    /// Logs an error when a market whose deadlines count working days has no holiday in the year of its business date
    /// `today`: its deadlines would count holidays as working days, so a complaint would be flagged a few days early
    /// (sooner than the law requires, never later). It does not stop the start: a lender that cannot start on
    /// 1 January cannot take repayments either. From 1 October it also warns while the next year has none, so the
    /// list is updated before it runs out. Only a list that does not parse stops the start ([`CalendarSettings`]).
    pub fn check_year(&self, market: Market, today: time::Date, mode: Mode) {
        if !kilat_domain::complaints::counts_working_days(market) {
            return;
        }
        let key = market_key(market);
        if !self.covers_year(market, today.year()) {
            let message = format!(
                "calendar.holidays.{key} has no date in {}: the complaint deadlines in working days would count the \
                 public holidays as working days (flagging complaints early). Add the year's holidays to \
                 [calendar.holidays] in the settings file (see server/src/defaults.toml for where they come from)",
                today.year()
            );
            if mode == Mode::Production {
                tracing::error!("{message}");
            } else {
                tracing::warn!("{message}");
            }
        } else if today.month() >= time::Month::October
            && !self.covers_year(market, today.year() + 1)
        {
            tracing::warn!(
                "calendar.holidays.{key} has no date in {}: add next year's public holidays before 1 January",
                today.year() + 1
            );
        }
    }
}

fn market_key(market: Market) -> &'static str {
    match market {
        Market::India => "in",
        Market::Indonesia => "id",
    }
}

impl CalendarSettings {
    /// Parses each market's list, refusing a date that is not `YYYY-MM-DD`, a list out of order and a duplicate.
    pub fn holidays(&self) -> anyhow::Result<Holidays> {
        Ok(Holidays {
            india: parse_holidays(Market::India, &self.holidays.india)?,
            indonesia: parse_holidays(Market::Indonesia, &self.holidays.indonesia)?,
        })
    }
}

fn parse_holidays(market: Market, written: &[String]) -> anyhow::Result<Vec<time::Date>> {
    let key = market_key(market);
    let format = time::macros::format_description!("[year]-[month]-[day]");
    let mut dates: Vec<time::Date> = Vec::with_capacity(written.len());
    for text in written {
        let date = time::Date::parse(text.trim(), format).with_context(|| {
            format!("calendar.holidays.{key}: {text:?} is not a date written YYYY-MM-DD")
        })?;
        if let Some(last) = dates.last() {
            if *last == date {
                bail!("calendar.holidays.{key}: {date} is listed twice");
            }
            if *last > date {
                bail!(
                    "calendar.holidays.{key}: {date} comes after {last}; list the dates in order"
                );
            }
        }
        dates.push(date);
    }
    Ok(dates)
}

/// The caps every product, quote, extension and late charge is checked against (PRODUCT.md §3): configuration keyed
/// by date and tenor, so a new OJK rule needs no release. The defaults are the rules as this product knows them.
#[derive(Debug, Clone, Deserialize)]
pub struct CapSettings {
    /// The shortest cooling-off a product may have, in days (RBI's digital lending directions: at least 3).
    pub min_cooling_off_days: u32,
    /// Indonesia's cap table (`[caps.id]`): daily cost by disbursal date and tenor, the total cost cap, and the daily
    /// late-charge cap by date.
    #[serde(rename = "id")]
    pub indonesia: kilat_domain::CapTable,
}

impl CapSettings {
    /// Refuses a cap table a product could not be checked against: no daily row, a cap of 0 or above 100% a day, a
    /// total cost cap of 0, or a cooling-off under the law's 3 days.
    pub fn validate(&self) -> anyhow::Result<()> {
        let table = &self.indonesia;
        if self.min_cooling_off_days < kilat_domain::product::MIN_COOLING_OFF_DAYS {
            bail!(
                "caps.min_cooling_off_days must be at least {} (the law's minimum)",
                kilat_domain::product::MIN_COOLING_OFF_DAYS
            );
        }
        if table.daily_cost.is_empty() {
            bail!("caps.id.daily_cost needs at least one row");
        }
        let full = kilat_domain::Rate::from_ppb(kilat_domain::rate::RATE_SCALE);
        for row in &table.daily_cost {
            if row.daily.ppb() <= 0 || row.daily > full {
                bail!(
                    "caps.id.daily_cost: a daily cap must be over 0% and at most 100%, not {}",
                    row.daily
                );
            }
            if row
                .tenor_under_months
                .is_some_and(|u| u <= row.tenor_from_months)
            {
                bail!("caps.id.daily_cost: tenor_under_months must be more than tenor_from_months");
            }
        }
        if table.total_cost.ppb() <= 0 {
            bail!("caps.id.total_cost must be over 0%");
        }
        if table
            .late_charge_daily
            .iter()
            .any(|row| row.daily.ppb() <= 0 || row.daily > full)
        {
            bail!("caps.id.late_charge_daily: a daily cap must be over 0% and at most 100%");
        }
        Ok(())
    }
}

/// The file store behind `infra::files::FileStore` (complaint images).
#[derive(Debug, Clone, Deserialize)]
pub struct FileSettings {
    /// `local`: a folder on this server's disk; `s3`: a bucket of an S3-compatible store (`[files.s3]`).
    pub store: FileStoreKind,
    /// The folder for `local`, created when missing.
    pub dir: std::path::PathBuf,
    /// The bucket for `s3` (`KILAT_FILES__S3__…`).
    pub s3: S3Settings,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStoreKind {
    Local,
    S3,
}

/// A bucket of any S3-compatible store (AWS S3, MinIO, Cloudflare R2, …), reached with an access key.
#[derive(Debug, Clone, Deserialize)]
pub struct S3Settings {
    /// The service's URL without the bucket: `https://s3.ap-south-1.amazonaws.com`, `https://ACCOUNT.r2.cloudflarestorage.com`,
    /// `http://127.0.0.1:9000` (plain http only on a loopback address in production).
    pub endpoint: String,
    /// The bucket's region as the signature names it (`ap-south-1`; R2: `auto`; MinIO: `us-east-1`).
    pub region: String,
    pub bucket: String,
    /// Put before every key (`kilat/prod` stores `kilat/prod/complaints/…`); empty for none.
    pub prefix: String,
    /// `true`: `ENDPOINT/BUCKET/KEY` (MinIO's default); `false`: `BUCKET.ENDPOINT-HOST/KEY` (AWS's virtual-hosted style).
    pub path_style: bool,
    pub access_key_id: Option<SecretString>,
    pub secret_access_key: Option<SecretString>,
    /// The longest one put, get or delete may take, retries included, in milliseconds.
    pub timeout_ms: u64,
}

impl FileSettings {
    /// Refuses an `s3` store that could not work: no endpoint, region, bucket or credentials, a bucket name S3 refuses,
    /// and, in production, an endpoint reached over plain http (the images and the signed requests would cross the
    /// network in clear) unless it is a loopback address.
    pub fn validate(&self, mode: Mode) -> anyhow::Result<()> {
        match self.store {
            FileStoreKind::Local => Ok(()),
            FileStoreKind::S3 => self.s3.validate(mode),
        }
    }
}

impl S3Settings {
    fn validate(&self, mode: Mode) -> anyhow::Result<()> {
        let endpoint = self.endpoint_url()?;
        if mode == Mode::Production && endpoint.scheme() == "http" && !is_loopback(&endpoint) {
            bail!(
                "KILAT_FILES__S3__ENDPOINT must start with https:// in production (images and signed requests would \
                 cross the network in clear): use the store's https endpoint, not {:?}",
                self.endpoint
            );
        }
        if !self.path_style && host_is_ip(&endpoint) {
            bail!(
                "KILAT_FILES__S3__PATH_STYLE=false puts the bucket in the host name, which {:?} has none of (an IP \
                 address): set KILAT_FILES__S3__PATH_STYLE=true",
                self.endpoint
            );
        }
        if self.region.trim().is_empty() {
            bail!(
                "KILAT_FILES__S3__REGION is required with KILAT_FILES__STORE=s3 (e.g. ap-south-1; R2: auto; MinIO: \
                 us-east-1)"
            );
        }
        if !is_bucket_name(&self.bucket) {
            bail!(
                "KILAT_FILES__S3__BUCKET must name the bucket with KILAT_FILES__STORE=s3: 3 to 63 lower-case letters, \
                 digits, '.' and '-', starting and ending with a letter or digit, not {:?}",
                self.bucket
            );
        }
        if !self.prefix.is_empty()
            && !(self.prefix.split('/').all(|part| {
                !part.is_empty()
                    && part != "."
                    && part != ".."
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
            }))
        {
            bail!(
                "KILAT_FILES__S3__PREFIX must be empty or folders of letters, digits, '-', '_' and '.' joined by '/' \
                 (no leading or trailing '/'), e.g. kilat/prod, not {:?}",
                self.prefix
            );
        }
        let filled = |value: &Option<SecretString>| {
            value
                .as_ref()
                .is_some_and(|v| !v.expose_secret().trim().is_empty())
        };
        if !filled(&self.access_key_id) || !filled(&self.secret_access_key) {
            bail!(
                "KILAT_FILES__S3__ACCESS_KEY_ID and KILAT_FILES__S3__SECRET_ACCESS_KEY are required with \
                 KILAT_FILES__STORE=s3: set both in the environment, not in a committed file"
            );
        }
        if self.timeout_ms == 0 {
            bail!("KILAT_FILES__S3__TIMEOUT_MS must be at least 1");
        }
        Ok(())
    }

    /// The endpoint as a URL: `http` or `https`, a host, no path, query or credentials.
    pub fn endpoint_url(&self) -> anyhow::Result<reqwest::Url> {
        let fix = "KILAT_FILES__S3__ENDPOINT must be the store's URL without the bucket, e.g. \
                   https://s3.ap-south-1.amazonaws.com or http://127.0.0.1:9000";
        if self.endpoint.trim().is_empty() {
            bail!("{fix}: it is required with KILAT_FILES__STORE=s3");
        }
        let url = reqwest::Url::parse(self.endpoint.trim())
            .with_context(|| format!("{fix}, not {:?}", self.endpoint))?;
        if !matches!(url.scheme(), "http" | "https")
            || url.host_str().is_none_or(str::is_empty)
            || url.path() != "/"
            || url.query().is_some()
            || url.fragment().is_some()
            || !url.username().is_empty()
            || url.password().is_some()
        {
            bail!("{fix}, not {:?}", self.endpoint);
        }
        Ok(url)
    }
}

/// S3's rule for bucket names (the ones valid with virtual-hosted style, i.e. every name S3 still lets you create).
fn is_bucket_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (3..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-'))
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && !name.contains("..")
        && name.parse::<std::net::Ipv4Addr>().is_err()
}

/// The collection accounts and payment providers of each market (docs/API-BORROWER.md, "Repayment").
#[derive(Debug, Clone, Deserialize)]
pub struct PaymentSettings {
    /// The most verified callbacks credited together in one transaction (`KILAT_PAYMENTS__CALLBACK_BATCH`); 1 credits
    /// each on its own (`servicing::callbacks::Crediting`).
    pub callback_batch: usize,
    /// How many batches of callbacks may be out at once (`KILAT_PAYMENTS__CALLBACK_LANES`), each on a connection of
    /// its own.
    pub callback_lanes: usize,
    /// India: UPI and bank transfer to the collection account (`KILAT_PAYMENTS__IN__…`).
    #[serde(rename = "in")]
    pub india: IndiaCollection,
    /// Indonesia: a virtual account per payment (`KILAT_PAYMENTS__ID__…`).
    #[serde(rename = "id")]
    pub indonesia: IndonesiaCollection,
    /// Razorpay's webhook (`KILAT_PAYMENTS__RAZORPAY__…`): `POST /api/v1/webhooks/razorpay`.
    pub razorpay: WebhookSecret,
    /// Xendit's virtual-account paid callback (`KILAT_PAYMENTS__XENDIT__…`): `POST /api/v1/webhooks/xendit/va-paid`.
    pub xendit: WebhookSecret,
    /// Dragonpay's postback (`KILAT_PAYMENTS__DRAGONPAY__…`): `POST /api/v1/webhooks/dragonpay/postback`.
    pub dragonpay: WebhookSecret,
}

/// A payment provider's callback: on or off, and the secret that verifies it (Razorpay's webhook secret, Xendit's
/// callback token, Dragonpay's password). Development has known test values; production refuses to start with an
/// enabled provider whose secret is empty, one of those test values, or otherwise guessable (`crypto::weak_secret`).
#[derive(Debug, Clone, Deserialize)]
pub struct WebhookSecret {
    pub enabled: bool,
    pub secret: Option<SecretString>,
}

impl WebhookSecret {
    /// The secret when the provider is enabled; `None` answers its callbacks 404.
    pub fn active(&self) -> Option<SecretString> {
        self.secret
            .clone()
            .filter(|s| self.enabled && !s.expose_secret().is_empty())
    }

    fn validate(&self, name: &str, mode: Mode) -> anyhow::Result<()> {
        if mode != Mode::Production || !self.enabled {
            return Ok(());
        }
        let secret = self
            .secret
            .as_ref()
            .map(|s| s.expose_secret().trim())
            .unwrap_or_default();
        if secret.is_empty() {
            bail!(
                "KILAT_PAYMENTS__{name}__SECRET is required in production while KILAT_PAYMENTS__{name}__ENABLED is \
                 true: set the provider's secret or disable it"
            );
        }
        check_secret(&format!("KILAT_PAYMENTS__{name}__SECRET"), secret)
    }
}

/// Refuses a production secret anybody could guess (`crypto::weak_secret`), naming its variable.
fn check_secret(variable: &str, secret: &str) -> anyhow::Result<()> {
    match crate::infra::crypto::weak_secret(secret) {
        Some(weakness) => bail!(
            "{variable} is {weakness}: production needs the provider's own secret, at least {} characters and \
             random (for one you choose: `openssl rand -hex 32`)",
            crate::infra::crypto::MIN_SECRET_CHARS
        ),
        None => Ok(()),
    }
}

impl PaymentSettings {
    /// Production refuses an enabled provider without its own secret.
    pub fn validate(&self, mode: Mode) -> anyhow::Result<()> {
        self.razorpay.validate("RAZORPAY", mode)?;
        self.xendit.validate("XENDIT", mode)?;
        self.dragonpay.validate("DRAGONPAY", mode)?;
        self.indonesia.validate(mode)
    }
}

/// India's collection account: a UPI id and the bank account behind it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct IndiaCollection {
    pub payee_name: String,
    pub upi_id: String,
    pub bank_name: String,
    pub account_number: String,
    pub ifsc: String,
    /// Working days (Monday to Friday, less the market's holidays) finance takes to check a submitted UTR against the
    /// bank statement: the borrower is told the day ("checked by 30 Nov 2026"). Finance's own commitment: change it
    /// with the team's practice.
    #[serde(default = "default_utr_check_working_days")]
    pub utr_check_working_days: u32,
    /// Dragonpay's over-the-counter payment offered in this market (with `[payments.dragonpay]` enabled).
    #[serde(default)]
    pub dragonpay: bool,
    /// Where a Dragonpay reference can be paid, as shown on the instructions page.
    #[serde(default)]
    pub dragonpay_channels: Vec<String>,
    /// How long a Dragonpay reference can be paid, in hours.
    #[serde(default = "default_expiry_hours")]
    pub dragonpay_expiry_hours: u32,
}

fn default_utr_check_working_days() -> u32 {
    1
}

fn default_expiry_hours() -> u32 {
    24
}

/// Indonesia's virtual accounts: the provider that issues them (`simulated` issues numbers locally, for
/// development only; `xendit` creates each by a call to `xendit_base_url`) and the bank they are at.
#[derive(Debug, Clone, Deserialize)]
pub struct IndonesiaCollection {
    pub va_provider: String,
    pub bank_code: String,
    pub account_name: String,
    /// How long a virtual account takes payment, in hours.
    #[serde(default = "default_expiry_hours")]
    pub va_expiry_hours: u32,
    /// The Xendit-compatible API (for `va_provider = "xendit"`).
    #[serde(default)]
    pub xendit_base_url: String,
    /// Its secret API key (KILAT_PAYMENTS__ID__XENDIT_API_KEY), sent as the basic-auth user.
    #[serde(default)]
    pub xendit_api_key: Option<SecretString>,
    /// Per call, in milliseconds; a slower answer is a `provider_unavailable` (503).
    #[serde(default = "default_provider_timeout_ms")]
    pub xendit_timeout_ms: u64,
    /// Dragonpay's over-the-counter payment offered in this market (with `[payments.dragonpay]` enabled).
    #[serde(default)]
    pub dragonpay: bool,
    /// Where a Dragonpay reference can be paid, as shown on the instructions page.
    #[serde(default)]
    pub dragonpay_channels: Vec<String>,
    /// How long a Dragonpay reference can be paid, in hours.
    #[serde(default = "default_expiry_hours")]
    pub dragonpay_expiry_hours: u32,
}

fn default_provider_timeout_ms() -> u64 {
    10_000
}

impl IndonesiaCollection {
    /// Production issues real accounts only: `simulated` is refused, and `xendit` needs its base URL and its own key.
    fn validate(&self, mode: Mode) -> anyhow::Result<()> {
        match self.va_provider.as_str() {
            "simulated" if mode == Mode::Production => bail!(
                "KILAT_PAYMENTS__ID__VA_PROVIDER=simulated issues numbers no bank knows: production needs a real \
                 provider (xendit)"
            ),
            "simulated" => Ok(()),
            "xendit" => {
                if !self.xendit_base_url.starts_with("http") {
                    bail!(
                        "KILAT_PAYMENTS__ID__XENDIT_BASE_URL is required with va_provider = \"xendit\""
                    );
                }
                let key = self
                    .xendit_api_key
                    .as_ref()
                    .map(|k| k.expose_secret().trim())
                    .unwrap_or_default();
                if key.is_empty() {
                    bail!(
                        "KILAT_PAYMENTS__ID__XENDIT_API_KEY is required with va_provider = \"xendit\""
                    );
                }
                if mode == Mode::Production {
                    check_secret("KILAT_PAYMENTS__ID__XENDIT_API_KEY", key)?;
                }
                Ok(())
            }
            other => bail!(
                "KILAT_PAYMENTS__ID__VA_PROVIDER={other:?} is not a provider this server has: use simulated or xendit"
            ),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Development,
    Production,
}

/// `GET /metrics` in the Prometheus text format, on an address of its own (`infra::metrics`).
#[derive(Debug, Clone, Deserialize)]
pub struct MetricsSettings {
    /// `host:port` of the scrape endpoint, apart from `listen` so the public never reaches it; empty: none.
    pub listen: String,
}

impl MetricsSettings {
    /// The scrape endpoint's address, if one is set.
    pub fn address(&self) -> anyhow::Result<Option<SocketAddr>> {
        let listen = self.listen.trim();
        if listen.is_empty() {
            return Ok(None);
        }
        listen.parse().map(Some).map_err(|_| {
            anyhow::anyhow!(
                "KILAT_METRICS__LISTEN must be host:port, such as 127.0.0.1:9464, not {listen:?}"
            )
        })
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct LogSettings {
    /// `text` for people, `json` for log collectors.
    pub format: LogFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

/// How sign-in codes reach phones.
#[derive(Debug, Clone, Deserialize)]
pub struct SmsSettings {
    /// `log` (development: the server log and the development outbox) or `http` (a provider's HTTP API).
    pub sender: SmsSender,
    /// The provider's endpoint (for `http`).
    pub http_url: String,
    /// The provider's API key (for `http`), sent as a bearer token.
    pub http_api_key: Option<SecretString>,
    /// Per attempt, in milliseconds.
    pub http_timeout_ms: u64,
    /// Attempts after the first on a network error or a 5xx answer.
    pub http_retries: u32,
    /// Reminders and receipts the sender sends at once (texts and pushes): within what the provider takes.
    pub sends_at_once: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SmsSender {
    Log,
    Http,
}

/// How pushes (payment receipts) reach the devices whose apps uploaded a push token.
#[derive(Debug, Clone, Deserialize)]
pub struct PushSettings {
    /// `off` (no pushes are queued), `log` (development: the server log) or `http` (a push gateway's HTTP API).
    pub sender: PushSenderKind,
    /// The gateway's endpoint (for `http`).
    pub http_url: String,
    /// The gateway's API key (for `http`), sent as a bearer token.
    pub http_api_key: Option<SecretString>,
    /// Per attempt, in milliseconds.
    pub http_timeout_ms: u64,
    /// Attempts after the first on a network error or a 5xx answer.
    pub http_retries: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PushSenderKind {
    Off,
    Log,
    Http,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ContactSettings {
    /// Contact messages one client address may send in a minute; more get 429.
    pub per_minute: u32,
}

/// The request limits a deployment sizes (docs/ARCHITECTURE.md, "Security: limits"). The per-address ones are sized
/// for an address that many people share (a mobile carrier's NAT); the per-phone, per-borrower and per-account limits
/// carry the load.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct LimitSettings {
    /// Sign-in and verification codes requested from one client address in a day (an IPv6 address counts by its /64).
    pub codes_per_address_per_day: u32,
    /// Sign-in codes sent in one market in ten minutes to numbers no borrower has, everyone together: the ceiling of
    /// the SMS bill (an SMS-pumping attack spread over many addresses and numbers), which a borrower's own number never
    /// meets.
    pub codes_per_market: u32,
    /// Borrower sign-in attempts from one client address in ten minutes.
    pub sign_ins_per_address: u32,
    /// Console sign-in attempts from one client address in ten minutes.
    pub console_sign_ins_per_address: u32,
    /// Password checks of one operator in fifteen minutes from addresses it never signed in from (each address has
    /// five of its own besides).
    pub password_checks_per_account: u32,
    /// Complaints one borrower may file in a day.
    pub complaints_per_day: u32,
    /// Repayments one borrower may start in a day (each may ask a provider for a virtual account).
    pub payments_per_day: u32,
    /// Contact-form messages from one client address in a day (besides `contact.per_minute`).
    pub contact_per_day: u32,
}

impl LimitSettings {
    fn validate(&self) -> anyhow::Result<()> {
        for (name, value) in [
            ("CODES_PER_ADDRESS_PER_DAY", self.codes_per_address_per_day),
            ("CODES_PER_MARKET", self.codes_per_market),
            ("SIGN_INS_PER_ADDRESS", self.sign_ins_per_address),
            (
                "CONSOLE_SIGN_INS_PER_ADDRESS",
                self.console_sign_ins_per_address,
            ),
            (
                "PASSWORD_CHECKS_PER_ACCOUNT",
                self.password_checks_per_account,
            ),
            ("COMPLAINTS_PER_DAY", self.complaints_per_day),
            ("PAYMENTS_PER_DAY", self.payments_per_day),
            ("CONTACT_PER_DAY", self.contact_per_day),
        ] {
            if value == 0 {
                bail!("KILAT_LIMITS__{name} must be at least 1");
            }
        }
        Ok(())
    }
}

/// How many image decodes and password hashes run at once, and how long a request waits for its turn before
/// `503 server_busy` (`crate::infra::bounds`).
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct BoundSettings {
    /// Complaint images decoded at once; 0 means one per CPU core.
    pub image_decodes: usize,
    /// The memory the images decoding at once share, in MiB; each takes its working memory by the pixels its header
    /// declares (a 24-megapixel image 184 MiB, a 12-megapixel photo 92 MiB).
    pub image_memory_mb: u32,
    /// Argon2 password hashes at once (19 MiB each); 0 means one per CPU core.
    pub password_hashes: usize,
    /// Borrowers' data exports built at once (each up to ~100 MiB with its inline photos); 0 means one per CPU core.
    pub exports: usize,
    /// Loan documents (KFS, agreement, no-dues certificate) rendered to PDF at once, each on a blocking thread; 0
    /// means one per CPU core.
    pub documents: usize,
    /// The longest a request waits for its turn, in milliseconds.
    pub wait_ms: u64,
}

/// The borrower app's telemetry: its rate limit and how long it is kept (docs/API-BORROWER.md, "Telemetry").
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct TelemetrySettings {
    /// Telemetry requests one session may make in a minute; more get 429.
    pub per_minute: u32,
    /// Days a telemetry row is kept; the `telemetry-retention` job removes older ones.
    pub retention_days: u32,
}

/// How long each market keeps a deleted account's loan and transaction records after the relationship ends, in days
/// (docs/ACCOUNT.md, "Retention"); the records-retention job purges them afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct KeptRecordsSettings {
    /// India (`KILAT_KEPT_RECORDS__IN__…`).
    #[serde(rename = "in")]
    pub india: RecordRetention,
    /// Indonesia (`KILAT_KEPT_RECORDS__ID__…`).
    #[serde(rename = "id")]
    pub indonesia: RecordRetention,
}

/// Finance's payouts per market (`[payouts.in]`, `[payouts.id]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct PayoutSettings {
    /// India (`KILAT_PAYOUTS__IN__APPROVAL_THRESHOLD`).
    #[serde(rename = "in")]
    pub india: MarketPayouts,
    /// Indonesia (`KILAT_PAYOUTS__ID__APPROVAL_THRESHOLD`).
    #[serde(rename = "id")]
    pub indonesia: MarketPayouts,
}

/// One market's payout rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct MarketPayouts {
    /// Minor units (paise, sen): a payout of more than this needs a second finance operator's approval (maker-checker);
    /// up to it, one operator records it and the loan starts. 0 puts every payout through two operators.
    pub approval_threshold: i64,
}

impl PayoutSettings {
    /// The rule of `market`.
    pub fn of(&self, market: Market) -> MarketPayouts {
        match market {
            Market::India => self.india,
            Market::Indonesia => self.indonesia,
        }
    }

    fn validate(&self) -> anyhow::Result<()> {
        for (name, m) in [("in", self.india), ("id", self.indonesia)] {
            if m.approval_threshold < 0 {
                bail!(
                    "payouts.{name}.approval_threshold is {}: a threshold in minor units cannot be negative",
                    m.approval_threshold
                );
            }
        }
        Ok(())
    }
}

/// One market's retention of a deleted account's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct RecordRetention {
    /// Days the records are kept after the relationship ends; purged on the business date this many days after it.
    pub retention_days: u32,
    /// The law's minimum as counsel reads it (five years: at most 1827 days); `retention_days` may not be shorter.
    pub legal_minimum_days: u32,
}

impl KeptRecordsSettings {
    /// The retention of `market`.
    pub fn of(&self, market: Market) -> RecordRetention {
        match market {
            Market::India => self.india,
            Market::Indonesia => self.indonesia,
        }
    }

    /// Refuses a retention shorter than its market's legal minimum, or a minimum of 0 days.
    pub fn validate(&self) -> anyhow::Result<()> {
        for (prefix, r) in [
            ("KILAT_KEPT_RECORDS__IN", self.india),
            ("KILAT_KEPT_RECORDS__ID", self.indonesia),
        ] {
            if r.legal_minimum_days == 0 {
                bail!(
                    "{prefix}__LEGAL_MINIMUM_DAYS must be at least 1 (five years is at most 1827)"
                );
            }
            if r.retention_days < r.legal_minimum_days {
                bail!(
                    "{prefix}__RETENTION_DAYS = {} is shorter than the legal minimum of {} days \
                     ({prefix}__LEGAL_MINIMUM_DAYS): a deleted account's loan records would be purged before the law \
                     allows; keep them at least that long",
                    r.retention_days,
                    r.legal_minimum_days
                );
            }
        }
        Ok(())
    }
}

/// The public site settings of PRODUCT.md §2: the brand, shared by both markets, and one company per market (§5),
/// served by `GET /api/v1/site/settings?market=` and rendered into the pages as [`PublicSiteSettings`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SiteSettings {
    pub company_name: String,
    /// App name shown to India (English).
    pub app_name_en: String,
    /// App name shown to Indonesia (Indonesian).
    pub app_name_id: String,
    /// `#rrggbb`
    pub theme_background_color: String,
    /// `#rrggbb`, text on the theme background.
    pub background_font_color: String,
    /// `#rrggbb`, body text.
    pub font_color: String,
    /// `[site.markets.in]` and `[site.markets.id]`.
    pub markets: MarketCompanies,
}

/// One company per market: an Indonesian borrower never sees the Indian lender, and the other way round.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct MarketCompanies {
    /// India (`KILAT_SITE__MARKETS__IN__…`).
    #[serde(rename = "in")]
    pub india: Company,
    /// Indonesia (`KILAT_SITE__MARKETS__ID__…`).
    #[serde(rename = "id")]
    pub indonesia: Company,
}

/// The company a market's borrowers deal with, written in the market's language.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Company {
    /// The regulated lender's legal name (RBI: named on every borrower screen).
    pub lender_name: String,
    /// The lender's licence line: its RBI registration (India) or its OJK licence (Indonesia), with the number.
    pub licence: String,
    pub email: String,
    pub address: String,
    pub copyright: String,
    pub service_phone: String,
    pub whatsapp_number: String,
    /// The grievance redressal officer (India) or Pejabat Pengaduan (Indonesia).
    pub grievance_officer: GrievanceOfficer,
    /// The site's claim about payout speed ("within 2 hours"), a sentence; empty shows none. Only the seed of the
    /// stored claims (`crate::claims`, migration 0022): admins edit them in the console from the first start on.
    #[serde(default)]
    pub payout_claim: String,
    /// The site's claim about its users ("3 million users"), a sentence; empty shows none. The seed, as above.
    #[serde(default)]
    pub users_claim: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
pub struct GrievanceOfficer {
    pub name: String,
    pub email: String,
    pub phone: String,
}

/// One market's public settings: the brand and that market's company, flat. `GET /api/v1/site/settings?market=`
/// answers it, and each page carries its market's copy (docs/ARCHITECTURE.md, "Runtime settings in HTML").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicSiteSettings {
    /// The market these values are for.
    #[schema(schema_with = market_schema)]
    pub market: Market,
    pub company_name: String,
    /// App name shown to India (English).
    pub app_name_en: String,
    /// App name shown to Indonesia (Indonesian).
    pub app_name_id: String,
    /// `#rrggbb`
    pub theme_background_color: String,
    /// `#rrggbb`, text on the theme background.
    pub background_font_color: String,
    /// `#rrggbb`, body text.
    pub font_color: String,
    /// The regulated lender's legal name.
    pub lender_name: String,
    /// The lender's licence line (RBI registration in India, OJK licence in Indonesia).
    pub licence: String,
    pub email: String,
    pub address: String,
    pub copyright: String,
    pub service_phone: String,
    pub whatsapp_number: String,
    /// A chat with the WhatsApp number: `https://wa.me/` and the number's digits.
    pub whatsapp_url: String,
    pub grievance_officer: GrievanceOfficer,
    /// The site's payout-speed claim, a sentence in the market's language; empty: none is made.
    pub payout_claim: String,
    /// The site's claim about its users, a sentence; empty: none is made.
    pub users_claim: String,
}

/// `IN` or `ID`, as everywhere in the API.
pub fn market_schema() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(["IN", "ID"]))
        .build()
}

impl Settings {
    /// Reads the layers in order; `file` (or `KILAT_CONFIG`) names an optional TOML file.
    pub fn load(file: Option<&Path>) -> anyhow::Result<Self> {
        let mut builder = config::Config::builder()
            .add_source(config::File::from_str(DEFAULTS, config::FileFormat::Toml));
        if let Some(file) = file {
            builder = builder.add_source(
                config::File::from(file)
                    .format(config::FileFormat::Toml)
                    .required(true),
            );
        }
        let settings: Settings = builder
            .add_source(
                config::Environment::with_prefix("KILAT")
                    .prefix_separator("_")
                    .separator("__"),
            )
            .build()
            .context("reading the settings (file and KILAT_* variables)")?
            .try_deserialize()
            .context("a setting has a value of the wrong type (see the README's settings table)")?;
        settings.validate()?;
        Ok(settings)
    }

    /// The proxies to count back through in `X-Forwarded-For` (see `trusted_proxy_hops`).
    pub fn proxy_hops(&self) -> u32 {
        match (self.trusted_proxy_hops, self.trust_forwarded_for) {
            (0, true) => 1,
            (hops, _) => hops,
        }
    }

    /// Refuses settings that would start a broken or unsafe server, saying how to fix the value. `load` calls it, and
    /// so does `Application::build` for settings made in code.
    pub fn validate(&self) -> anyhow::Result<()> {
        let url = self.database_url.expose_secret();
        if !(url.starts_with("sqlite:")
            || url.starts_with("postgres://")
            || url.starts_with("postgresql://"))
        {
            bail!("KILAT_DATABASE_URL must start with sqlite:, postgres:// or postgresql://");
        }
        if self.contact.per_minute == 0 {
            bail!("KILAT_CONTACT__PER_MINUTE must be at least 1");
        }
        self.limits.validate()?;
        if self.telemetry.per_minute == 0 || self.telemetry.retention_days == 0 {
            bail!(
                "KILAT_TELEMETRY__PER_MINUTE and KILAT_TELEMETRY__RETENTION_DAYS must be at least 1"
            );
        }
        if self.sms.sender == SmsSender::Http && self.sms.http_url.trim().is_empty() {
            bail!("KILAT_SMS__HTTP_URL is required when KILAT_SMS__SENDER is http");
        }
        if self.mode == Mode::Production && self.sms.sender == SmsSender::Log {
            bail!("KILAT_SMS__SENDER=log only writes codes to the log: production needs http");
        }
        crate::infra::crypto::parse_secret_key(self.secret_key.as_ref(), self.mode)?;
        if self.mode == Mode::Production && self.sms.sender == SmsSender::Http {
            check_provider_url("KILAT_SMS__HTTP_URL", &self.sms.http_url)?;
        }
        if !(1..=64).contains(&self.sms.sends_at_once) {
            bail!("KILAT_SMS__SENDS_AT_ONCE must be from 1 to 64");
        }
        // A reminder's send must end well within the claim its sender holds on it (`jobs::reminders`): a text claimed
        // for longer is taken back and sent again.
        for (name, timeout_ms, retries) in [
            ("KILAT_SMS", self.sms.http_timeout_ms, self.sms.http_retries),
            (
                "KILAT_PUSH",
                self.push.http_timeout_ms,
                self.push.http_retries,
            ),
        ] {
            let longest = crate::infra::gateway::longest_post(
                std::time::Duration::from_millis(timeout_ms),
                retries,
            );
            if longest > crate::infra::gateway::LONGEST_POST {
                bail!(
                    "{name}__HTTP_TIMEOUT_MS × ({name}__HTTP_RETRIES + 1), with the pauses between the tries, comes \
                     to {} s: keep it within {} s",
                    longest.as_secs(),
                    crate::infra::gateway::LONGEST_POST.as_secs()
                );
            }
        }
        if self.push.sender == PushSenderKind::Http && self.push.http_url.trim().is_empty() {
            bail!("KILAT_PUSH__HTTP_URL is required when KILAT_PUSH__SENDER is http");
        }
        if self.mode == Mode::Production && self.push.sender == PushSenderKind::Log {
            bail!(
                "KILAT_PUSH__SENDER=log only writes pushes to the log: production needs http (a push gateway) or off"
            );
        }
        if self.mode == Mode::Production && self.push.sender == PushSenderKind::Http {
            check_provider_url("KILAT_PUSH__HTTP_URL", &self.push.http_url)?;
        }
        if self.mode == Mode::Development
            && !self.listen.ip().is_loopback()
            && !self.allow_public_listen_in_development
        {
            bail!(
                "KILAT_LISTEN={} is not a loopback address, and development mode serves every sign-in code at \
                 GET /api/v1/dev/outbox: listen on 127.0.0.1, set KILAT_MODE=production, or set \
                 KILAT_ALLOW_PUBLIC_LISTEN_IN_DEVELOPMENT=true on a network only you can reach",
                self.listen
            );
        }
        if let Some(origin) = &self.public_origin {
            check_public_origin(origin)?;
        }
        if let Some(metrics) = self.metrics.address()?
            && metrics == self.listen
            && metrics.port() != 0
        {
            bail!(
                "KILAT_METRICS__LISTEN must differ from KILAT_LISTEN: /metrics is not for the public"
            );
        }
        self.site.validate(self.mode)?;
        self.caps.validate()?;
        self.kept_records.validate()?;
        self.payouts.validate()?;
        self.files.validate(self.mode)?;
        self.calendar.holidays()?;
        self.payments.validate(self.mode)
    }
}

/// Codes, receipts and the provider's key travel to the SMS provider or the push gateway (`variable` names its URL):
/// production sends them over TLS only. Plain `http://` is accepted for a loopback address, where the traffic never
/// leaves the machine (a local relay, a test double).
fn check_provider_url(variable: &str, url: &str) -> anyhow::Result<()> {
    let parsed = reqwest::Url::parse(url.trim())
        .with_context(|| format!("{variable} is not a URL: {url:?}"))?;
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(&parsed) => Ok(()),
        _ => bail!(
            "{variable} must start with https:// in production (messages and the API key would cross the \
             network in clear): use the provider's https endpoint, not {url:?}"
        ),
    }
}

/// A URL whose traffic never leaves the machine: `localhost` or a loopback address.
fn is_loopback(url: &reqwest::Url) -> bool {
    url.host_str()
        .is_some_and(|host| host.eq_ignore_ascii_case("localhost"))
        || host_ip(url).is_some_and(|ip| ip.is_loopback())
}

fn host_ip(url: &reqwest::Url) -> Option<std::net::IpAddr> {
    url.host_str()?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()
}

fn host_is_ip(url: &reqwest::Url) -> bool {
    host_ip(url).is_some()
}

/// `scheme://host[:port]`, exactly as a browser writes the `Origin` header.
fn check_public_origin(origin: &str) -> anyhow::Result<()> {
    let ok = reqwest::Url::parse(origin).is_ok_and(|url| {
        matches!(url.scheme(), "http" | "https")
            && url.host_str().is_some()
            && url.path() == "/"
            && !origin.ends_with('/')
            && url.query().is_none()
            && url.username().is_empty()
    });
    if !ok {
        bail!(
            "KILAT_PUBLIC_ORIGIN must be a scheme and host as browsers send them in Origin, e.g. https://kilat.example \
             (no path, no trailing slash), not {origin:?}"
        );
    }
    Ok(())
}

impl Settings {
    /// The pool's size: the setting, or 4 connections for SQLite (it has one writer at a time, and each connection
    /// brings its own thread and page cache: 16 cost 20 MB more for no speed) and 16 for PostgreSQL.
    pub fn pool_size(&self) -> u32 {
        match self.database_max_connections {
            0 if self.database_url.expose_secret().starts_with("sqlite:") => 4,
            0 => 16,
            n => n,
        }
    }

    /// How the pool's size is shared out between the shared pool (writes, transactions, the other reads) and each of
    /// `workers` HTTP workers' own pools for the hot reads (`Db::open_worker_pool`). On PostgreSQL the server never
    /// holds more than [`Settings::pool_size`] connections in all: the worker pools share three quarters of it (most
    /// requests are hot reads) and the shared pool keeps the rest; when there is not one connection per worker to
    /// give, there are no worker pools and the shared pool keeps the whole. On SQLite, a file with no server's
    /// connection limit to share, the shared pool has the whole size and each worker adds [`SQLITE_WORKER_READS`]
    /// read connections of its own.
    pub fn pool_split(&self, workers: usize) -> PoolSplit {
        let total = self.pool_size();
        if self.database_url.expose_secret().starts_with("sqlite:") {
            return PoolSplit {
                shared: total,
                per_worker: SQLITE_WORKER_READS,
            };
        }
        let workers = u32::try_from(workers.max(1)).unwrap_or(u32::MAX);
        let per_worker = total * 3 / 4 / workers;
        PoolSplit {
            shared: total - per_worker * workers,
            per_worker,
        }
    }
}

/// Read connections of each HTTP worker's own pool on SQLite, for the hot reads (the session with the order list or
/// home). With one pool shared by the workers, a connection a worker released woke a request of the other worker, and
/// each worker sat idle while its few queries ran on SQLite's connection threads: two workers served fewer requests/s
/// than one (docs/PERFORMANCE.md, "The second worker on SQLite"). Two each: the hot reads take 15–25 µs of SQLite's
/// time against 45–65 µs of the worker's.
pub const SQLITE_WORKER_READS: u32 = 2;

/// The connections of the shared pool and of each HTTP worker's pool (see [`Settings::pool_split`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolSplit {
    pub shared: u32,
    /// 0: no worker pools.
    pub per_worker: u32,
}

impl SiteSettings {
    /// The company of `market`.
    pub fn company(&self, market: Market) -> &Company {
        match market {
            Market::India => &self.markets.india,
            Market::Indonesia => &self.markets.indonesia,
        }
    }

    /// The lender, its licence and the grievance officer a Key Fact Statement of `market` names.
    pub fn lender(&self, market: Market) -> kilat_domain::Lender {
        let company = self.company(market);
        kilat_domain::Lender {
            name: company.lender_name.clone(),
            licence: company.licence.clone(),
            grievance_officer: kilat_domain::GrievanceOfficer {
                name: company.grievance_officer.name.clone(),
                email: company.grievance_officer.email.clone(),
                phone: company.grievance_officer.phone.clone(),
            },
        }
    }

    /// What the site, the app and `GET /api/v1/site/settings` show in `market`.
    pub fn public(&self, market: Market) -> PublicSiteSettings {
        let c = self.company(market);
        PublicSiteSettings {
            market,
            company_name: self.company_name.clone(),
            app_name_en: self.app_name_en.clone(),
            app_name_id: self.app_name_id.clone(),
            theme_background_color: self.theme_background_color.clone(),
            background_font_color: self.background_font_color.clone(),
            font_color: self.font_color.clone(),
            lender_name: c.lender_name.clone(),
            licence: c.licence.clone(),
            email: c.email.clone(),
            address: c.address.clone(),
            copyright: c.copyright.clone(),
            service_phone: c.service_phone.clone(),
            whatsapp_number: c.whatsapp_number.clone(),
            whatsapp_url: format!(
                "https://wa.me/{}",
                c.whatsapp_number
                    .chars()
                    .filter(char::is_ascii_digit)
                    .collect::<String>()
            ),
            grievance_officer: c.grievance_officer.clone(),
            payout_claim: c.payout_claim.clone(),
            users_claim: c.users_claim.clone(),
        }
    }

    /// Colours end up in style attributes, so only `#rrggbb` is accepted. Each market names its lender and licence,
    /// and production refuses the demo's example e-mail addresses.
    pub fn validate(&self, mode: Mode) -> anyhow::Result<()> {
        for (name, value) in [
            (
                "KILAT_SITE__THEME_BACKGROUND_COLOR",
                &self.theme_background_color,
            ),
            (
                "KILAT_SITE__BACKGROUND_FONT_COLOR",
                &self.background_font_color,
            ),
            ("KILAT_SITE__FONT_COLOR", &self.font_color),
        ] {
            let ok = value.len() == 7
                && value.starts_with('#')
                && value[1..].chars().all(|c| c.is_ascii_hexdigit());
            if !ok {
                bail!("{name} must be a colour written #rrggbb, not {value:?}");
            }
        }
        if self.company_name.trim().is_empty() {
            bail!("KILAT_SITE__COMPANY_NAME must not be empty");
        }
        for (prefix, company) in [
            ("KILAT_SITE__MARKETS__IN", &self.markets.india),
            ("KILAT_SITE__MARKETS__ID", &self.markets.indonesia),
        ] {
            company.validate(prefix, mode)?;
        }
        if mode == Mode::Production {
            for (prefix, company) in [
                ("KILAT_SITE__MARKETS__IN", &self.markets.india),
                ("KILAT_SITE__MARKETS__ID", &self.markets.indonesia),
            ] {
                // The demo's licence lines say they are examples: a borrower must never be shown a made-up licence.
                let licence = company.licence.to_lowercase();
                if licence.contains("(example)") || licence.contains("(contoh)") {
                    bail!(
                        "{prefix}__LICENCE is the demo's example licence {:?}: set the lender's real licence line \
                         before running in production",
                        company.licence
                    );
                }
            }
        }
        Ok(())
    }
}

impl Company {
    fn validate(&self, prefix: &str, mode: Mode) -> anyhow::Result<()> {
        for (key, value) in [
            ("LENDER_NAME", &self.lender_name),
            ("LICENCE", &self.licence),
        ] {
            if value.trim().is_empty() {
                bail!(
                    "{prefix}__{key} must not be empty: borrowers are shown the lender and its licence"
                );
            }
        }
        for (key, value) in [
            ("GRIEVANCE_OFFICER__NAME", &self.grievance_officer.name),
            ("GRIEVANCE_OFFICER__PHONE", &self.grievance_officer.phone),
        ] {
            if value.trim().is_empty() {
                bail!(
                    "{prefix}__{key} must not be empty: the site and the app name the grievance officer with their \
                     contact details (RBI's digital lending rules; OJK)"
                );
            }
        }
        if mode == Mode::Production {
            for (key, value) in [
                ("EMAIL", &self.email),
                ("GRIEVANCE_OFFICER__EMAIL", &self.grievance_officer.email),
            ] {
                if is_example_address(value) {
                    bail!(
                        "{prefix}__{key} is the demo's example address {value:?}: set the company's real e-mail before \
                         running in production"
                    );
                }
            }
        }
        Ok(())
    }
}

/// An address at a domain reserved for examples (RFC 2606: `.example`, `example.com`, `.net`, `.org`).
fn is_example_address(email: &str) -> bool {
    let domain = email
        .rsplit_once('@')
        .map_or(email, |(_, domain)| domain)
        .trim()
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let reserved = ["example", "example.com", "example.net", "example.org"];
    reserved
        .iter()
        .any(|r| domain == *r || domain.ends_with(&format!(".{r}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::crypto::MIN_SECRET_CHARS;

    fn site() -> SiteSettings {
        Settings::load(None).expect("the defaults load").site
    }

    #[test]
    fn the_default_caps_are_todays_ojk_table_and_a_settings_file_replaces_them() {
        let defaults = Settings::load(None).expect("the defaults load").caps;
        assert_eq!(defaults.indonesia, kilat_domain::CapTable::ojk_consumer());
        assert_eq!(defaults.min_cooling_off_days, 3);
        let dir = std::env::temp_dir().join(format!("kilat-caps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("caps.toml");
        std::fs::write(
            &file,
            "[caps]\nmin_cooling_off_days = 5\n[caps.id]\ntotal_cost = \"90%\"\n\
             [[caps.id.daily_cost]]\neffective_from = \"2027-01-01\"\ndaily = \"0.25%\"\n",
        )
        .unwrap();
        let caps = Settings::load(Some(&file)).expect("the file loads").caps;
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(caps.min_cooling_off_days, 5);
        assert_eq!(
            caps.indonesia.daily_cost.len(),
            1,
            "the rows are replaced, not merged"
        );
        assert_eq!(
            caps.indonesia.daily_cost[0].daily,
            kilat_domain::Rate::from_ppb(2_500_000)
        );
        assert_eq!(
            caps.indonesia.total_cost,
            kilat_domain::Rate::from_ppb(900_000_000)
        );
    }

    #[test]
    fn a_gateway_call_that_could_outlast_a_reminders_claim_stops_the_start() {
        let good = Settings::load(None).expect("the defaults load");
        good.validate().expect("the defaults are within the bound");
        // 5 s × 3 tries and 0.6 s of pauses by default; 19 s × 3 and 0.6 s is 57.6 s, still within 60 s.
        let mut edge = good.clone();
        edge.sms.http_timeout_ms = 19_000;
        edge.validate().expect("57.6 s is within 60 s");
        let mut slow_sms = good.clone();
        slow_sms.sms.http_timeout_ms = 20_000;
        let mut many_pushes = good.clone();
        many_pushes.push.http_retries = 20;
        for (bad, variable) in [(slow_sms, "KILAT_SMS__"), (many_pushes, "KILAT_PUSH__")] {
            let err = bad.validate().expect_err("beyond 60 s").to_string();
            assert!(
                err.contains(variable) && err.contains("within 60 s"),
                "{err}"
            );
        }
    }

    #[test]
    fn caps_a_product_could_not_be_checked_against_stop_the_start() {
        let good = Settings::load(None).expect("the defaults load").caps;
        let mut no_rows = good.clone();
        no_rows.indonesia.daily_cost.clear();
        let mut short = good.clone();
        short.min_cooling_off_days = 2;
        let mut zero = good.clone();
        zero.indonesia.daily_cost[0].daily = kilat_domain::Rate::from_ppb(0);
        let mut tenor = good.clone();
        tenor.indonesia.daily_cost[1].tenor_under_months = Some(0);
        for bad in [no_rows, short, zero, tenor] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        good.validate().expect("the defaults pass");
    }

    #[test]
    fn kept_records_default_to_five_years_and_a_retention_under_the_legal_minimum_stops_the_start()
    {
        let defaults = Settings::load(None)
            .expect("the defaults load")
            .kept_records;
        for market in [Market::India, Market::Indonesia] {
            assert_eq!(defaults.of(market).retention_days, 1827);
            assert_eq!(defaults.of(market).legal_minimum_days, 1827);
        }
        let mut short = defaults;
        short.indonesia.retention_days = 1825;
        let err = short.validate().unwrap_err().to_string();
        assert!(
            err.contains("KILAT_KEPT_RECORDS__ID__RETENTION_DAYS"),
            "{err}"
        );
        let mut longer = defaults;
        longer.india.retention_days = 2557;
        longer.validate().expect("longer than the minimum");
        let mut no_minimum = defaults;
        no_minimum.india.legal_minimum_days = 0;
        no_minimum.india.retention_days = 0;
        let err = no_minimum.validate().unwrap_err().to_string();
        assert!(
            err.contains("KILAT_KEPT_RECORDS__IN__LEGAL_MINIMUM_DAYS"),
            "{err}"
        );
    }

    #[test]
    fn the_default_holidays_are_indonesia_s_decreed_2026_days_and_india_has_none() {
        let holidays = Settings::load(None)
            .expect("the defaults load")
            .calendar
            .holidays()
            .expect("the default holidays parse");
        assert!(holidays.of(Market::India).is_empty());
        let id = holidays.of(Market::Indonesia);
        // 17 national holidays and 8 days of collective leave (SKB 3 Menteri for 2026).
        assert_eq!(id.iter().filter(|d| d.year() == 2026).count(), 25);
        assert!(id.contains(&time::macros::date!(2026 - 03 - 20)));
        assert!(id.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn holidays_out_of_order_listed_twice_or_not_dates_stop_the_start() {
        let with = |id: &[&str]| CalendarSettings {
            holidays: MarketHolidays {
                india: vec![],
                indonesia: id.iter().map(|d| (*d).to_owned()).collect(),
            },
        };
        for (bad, why) in [
            (with(&["2026-01-02", "2026-01-01"]), "comes after"),
            (with(&["2026-01-01", "2026-01-01"]), "listed twice"),
            (with(&["2026-13-01"]), "YYYY-MM-DD"),
            (with(&["1 January 2026"]), "YYYY-MM-DD"),
        ] {
            let err = format!("{:#}", bad.holidays().unwrap_err());
            assert!(err.contains(why), "{err}");
            assert!(err.contains("calendar.holidays.id"), "{err}");
        }
        let good = with(&["2026-01-01", "2026-01-16"]).holidays().unwrap();
        assert_eq!(good.of(Market::Indonesia).len(), 2);
    }

    #[test]
    fn a_year_without_holidays_is_logged_and_never_stops_the_start() {
        let holidays = CalendarSettings {
            holidays: MarketHolidays {
                india: vec![],
                indonesia: vec!["2026-01-01".to_owned()],
            },
        }
        .holidays()
        .unwrap();
        let in_2027 = time::macros::date!(2027 - 03 - 01);
        assert!(!holidays.covers_year(Market::Indonesia, 2027));
        assert!(holidays.covers_year(Market::Indonesia, 2026));
        // A missing year is logged, never a refusal to start (deadlines then fall early, not late); India counts
        // calendar days and needs none.
        holidays.check_year(Market::Indonesia, in_2027, Mode::Production);
        holidays.check_year(Market::Indonesia, in_2027, Mode::Development);
        holidays.check_year(Market::India, in_2027, Mode::Production);
        holidays.check_year(
            Market::Indonesia,
            time::macros::date!(2026 - 11 - 25),
            Mode::Production,
        );
    }

    #[test]
    fn the_worker_pools_and_the_shared_pool_stay_within_the_configured_size() {
        let mut settings = Settings::load(None).expect("the defaults load");
        settings.database_url = "postgres://kilat@db/kilat".to_owned().into();
        for (max, workers, shared, per_worker) in [
            (0, 2, 4, 6),
            (16, 2, 4, 6),
            (16, 3, 4, 4),
            (10, 2, 4, 3),
            (4, 2, 2, 1),
            (2, 2, 2, 0),
            (1, 1, 1, 0),
            (8, 1, 2, 6),
        ] {
            settings.database_max_connections = max;
            let split = settings.pool_split(workers);
            assert_eq!(
                split,
                PoolSplit { shared, per_worker },
                "{max} connections, {workers} workers"
            );
            assert!(split.shared >= 1);
            assert!(split.shared + split.per_worker * workers as u32 <= settings.pool_size());
        }
        // SQLite: the shared pool keeps the whole setting; each worker reads on two of its own.
        settings.database_url = "sqlite:///tmp/kilat.db".to_owned().into();
        for (max, workers, shared) in [(0, 2, 4), (0, 8, 4), (6, 1, 6)] {
            settings.database_max_connections = max;
            assert_eq!(
                settings.pool_split(workers),
                PoolSplit {
                    shared,
                    per_worker: SQLITE_WORKER_READS
                },
                "{max} connections, {workers} workers"
            );
        }
    }

    #[test]
    fn example_domains_are_recognised_and_real_ones_are_not() {
        for example in [
            "hello@kilat.example",
            "grievance@in.kilat.EXAMPLE",
            "a@example.com",
            "a@mail.example.org.",
        ] {
            assert!(is_example_address(example), "{example}");
        }
        for real in ["hello@kilat.co.id", "a@example.co.in", "a@notexample.com"] {
            assert!(!is_example_address(real), "{real}");
        }
    }

    #[test]
    fn production_refuses_an_enabled_provider_without_its_own_secret() {
        let payments = Settings::load(None).expect("the defaults load").payments;
        payments
            .validate(Mode::Development)
            .expect("development's test values");
        let err = payments.validate(Mode::Production).unwrap_err().to_string();
        assert!(err.contains("KILAT_PAYMENTS__RAZORPAY__SECRET"), "{err}");
        let mut real = payments.clone();
        for hook in [&mut real.razorpay, &mut real.xendit, &mut real.dragonpay] {
            hook.secret = Some(REAL_SECRET.into());
        }
        real.indonesia.va_provider = "xendit".into();
        real.indonesia.xendit_base_url = "https://api.xendit.co".into();
        real.indonesia.xendit_api_key = Some(REAL_XENDIT_KEY.into());
        real.validate(Mode::Production).expect("real secrets");
        let mut simulated = real.clone();
        simulated.indonesia.va_provider = "simulated".into();
        let err = simulated
            .validate(Mode::Production)
            .unwrap_err()
            .to_string();
        assert!(err.contains("KILAT_PAYMENTS__ID__VA_PROVIDER"), "{err}");
        simulated
            .validate(Mode::Development)
            .expect("development issues numbers locally");
        let mut keyless = real.clone();
        keyless.indonesia.xendit_api_key = None;
        let err = keyless.validate(Mode::Production).unwrap_err().to_string();
        assert!(err.contains("KILAT_PAYMENTS__ID__XENDIT_API_KEY"), "{err}");
        let mut empty = real.clone();
        empty.xendit.secret = Some("".into());
        let err = empty.validate(Mode::Production).unwrap_err().to_string();
        assert!(err.contains("KILAT_PAYMENTS__XENDIT__SECRET"), "{err}");
        empty.xendit.enabled = false;
        empty
            .validate(Mode::Production)
            .expect("a disabled provider needs no secret");
        assert!(empty.xendit.active().is_none());
        assert!(real.xendit.active().is_some());
    }

    /// Secrets as providers' dashboards and `openssl rand` make them.
    const REAL_SECRET: &str = "q7Rv2KxN9pLm4TzW8cYb3HdF";
    const REAL_XENDIT_KEY: &str = "xnd_production_Q9v2LmT7cX4pR8kW1zN6bY3hJ5dF0sG";

    fn real_payments() -> PaymentSettings {
        let mut real = Settings::load(None).expect("the defaults load").payments;
        for hook in [&mut real.razorpay, &mut real.xendit, &mut real.dragonpay] {
            hook.secret = Some(REAL_SECRET.into());
        }
        real.indonesia.va_provider = "xendit".into();
        real.indonesia.xendit_base_url = "https://api.xendit.co".into();
        real.indonesia.xendit_api_key = Some(REAL_XENDIT_KEY.into());
        real
    }

    #[test]
    fn production_refuses_each_weak_provider_secret_naming_its_variable_and_development_keeps_its_values()
     {
        let defaults = Settings::load(None).expect("the defaults load").payments;
        let development_values: Vec<String> =
            [&defaults.razorpay, &defaults.xendit, &defaults.dragonpay]
                .iter()
                .map(|hook| hook.secret.as_ref().unwrap().expose_secret().to_owned())
                .collect();
        let mut weak: Vec<String> = [
            "x",
            "changeme",
            "secret",
            "password",
            "test",
            "DEV-razorpay-webhook-secret",
            "Dev-0123456789abcdefghijklmnop",
            "razorpay-production-secret",
            "ChangeMe-ChangeMe-ChangeMe-2026",
            "kilat_webhook_password_0001",
            "abcabcabcabcabcabcabcabcabc",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "1212121212121212121212121",
            "ab12ab12ab12ab12ab12ab12ab1",
            "q7Rv2KxN9pLm4TzW8cYb3Hd",
        ]
        .map(str::to_owned)
        .to_vec();
        weak.extend(development_values);
        for value in &weak {
            for (name, hook) in [("RAZORPAY", 0), ("XENDIT", 1), ("DRAGONPAY", 2)] {
                let mut payments = real_payments();
                let hooks = [
                    &mut payments.razorpay,
                    &mut payments.xendit,
                    &mut payments.dragonpay,
                ];
                hooks.into_iter().nth(hook).unwrap().secret = Some(value.as_str().into());
                let err = payments.validate(Mode::Production).unwrap_err().to_string();
                assert!(
                    err.contains(&format!("KILAT_PAYMENTS__{name}__SECRET is ")),
                    "{value:?}: {err}"
                );
                if value.len() >= MIN_SECRET_CHARS {
                    assert!(
                        !err.contains(value.as_str()),
                        "the secret is never printed: {err}"
                    );
                }
            }
            let mut payments = real_payments();
            payments.indonesia.xendit_api_key = Some(value.as_str().into());
            let err = payments.validate(Mode::Production).unwrap_err().to_string();
            assert!(
                err.contains("KILAT_PAYMENTS__ID__XENDIT_API_KEY is "),
                "{value:?}: {err}"
            );
        }
        real_payments()
            .validate(Mode::Production)
            .expect("real secrets");
        defaults
            .validate(Mode::Development)
            .expect("development keeps its test values");
    }

    #[test]
    fn production_refuses_each_example_address_and_names_its_variable() {
        let mut site = site();
        assert!(
            site.validate(Mode::Development).is_ok(),
            "the demo runs in development"
        );
        let err = site.validate(Mode::Production).unwrap_err().to_string();
        assert!(err.contains("KILAT_SITE__MARKETS__IN__EMAIL"), "{err}");
        site.markets.india.email = "hello@kilat.co.in".into();
        let err = site.validate(Mode::Production).unwrap_err().to_string();
        assert!(
            err.contains("KILAT_SITE__MARKETS__IN__GRIEVANCE_OFFICER__EMAIL"),
            "{err}"
        );
        site.markets.india.grievance_officer.email = "grievance@kilat.co.in".into();
        let err = site.validate(Mode::Production).unwrap_err().to_string();
        assert!(err.contains("KILAT_SITE__MARKETS__ID__EMAIL"), "{err}");
        site.markets.indonesia.email = "halo@kilat.co.id".into();
        site.markets.indonesia.grievance_officer.email = "pengaduan@kilat.co.id".into();
        // The demo's licence lines say they are examples: refused too, each named.
        let err = site.validate(Mode::Production).unwrap_err().to_string();
        assert!(err.contains("KILAT_SITE__MARKETS__IN__LICENCE"), "{err}");
        site.markets.india.licence =
            "Registered with the Reserve Bank of India as an NBFC, CoR No. N-14.03268".into();
        let err = site.validate(Mode::Production).unwrap_err().to_string();
        assert!(err.contains("KILAT_SITE__MARKETS__ID__LICENCE"), "{err}");
        site.markets.indonesia.licence =
            "Berizin dan diawasi oleh OJK, nomor izin KEP-12/D.05/2024".into();
        assert!(site.validate(Mode::Production).is_ok());
    }

    #[test]
    fn a_market_without_its_grievance_officers_name_or_phone_is_refused() {
        let mut site = site();
        site.markets.india.grievance_officer.phone = " ".into();
        let err = site.validate(Mode::Development).unwrap_err().to_string();
        assert!(
            err.contains("KILAT_SITE__MARKETS__IN__GRIEVANCE_OFFICER__PHONE"),
            "{err}"
        );
    }

    #[test]
    fn a_market_without_its_lender_or_licence_is_refused() {
        let mut site = site();
        site.markets.indonesia.licence = " ".into();
        let err = site.validate(Mode::Development).unwrap_err().to_string();
        assert!(err.contains("KILAT_SITE__MARKETS__ID__LICENCE"), "{err}");
    }

    #[test]
    fn each_market_gets_its_own_company_in_the_public_view() {
        let site = site();
        let india = site.public(Market::India);
        let indonesia = site.public(Market::Indonesia);
        assert_eq!(india.lender_name, site.markets.india.lender_name);
        assert_eq!(indonesia.lender_name, site.markets.indonesia.lender_name);
        assert_ne!(india.lender_name, indonesia.lender_name);
        assert!(indonesia.licence.contains("Otoritas Jasa Keuangan (OJK)"));
        assert!(india.licence.contains("Reserve Bank of India"));
        assert_eq!(
            india.company_name, indonesia.company_name,
            "the brand is shared"
        );
        assert_eq!(site.lender(Market::Indonesia).licence, indonesia.licence);
    }
}
