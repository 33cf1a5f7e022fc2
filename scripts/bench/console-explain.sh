#!/usr/bin/env bash
# EXPLAIN (ANALYZE, BUFFERS) of the console queues' statements on a seeded PostgreSQL database (`kilat dev seed`),
# before and after migration 0040: "before" runs the statements as they were (status bound as a parameter, the payout
# list sorted on the approval time looked up per approved order) with the migration's indexes dropped inside a
# transaction that is rolled back; "after" runs them as they are now. Usage: scripts/bench/console-explain.sh URL
# (prints Markdown to stdout). Read-only apart from the rolled-back DROP INDEX (which locks the tables meanwhile: not on
# a database in use).
set -euo pipefail
URL=${1:?usage: console-explain.sh postgres://…/database}
NOW=$(($(date +%s) * 1000))
YESTERDAY=$(date -u -d yesterday +%F)
D7=$(date -u -d '7 days ago' +%F)
D30=$(date -u -d '30 days ago' +%F)
D60=$(date -u -d '60 days ago' +%F)
D90=$(date -u -d '90 days ago' +%F)

explain() { # title sql [drop]
  local title=$1 sql=$2 drop=${3:-}
  echo "#### $title"
  echo
  echo '```'
  {
    echo "BEGIN;"
    [ -n "$drop" ] && echo "DROP INDEX orders_in_review, orders_awaiting_payout, payments_waiting;"
    # A prepared statement with the status as a parameter, as sqlx sent it before: PostgreSQL may pick a generic plan.
    echo "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) $sql;"
    echo "ROLLBACK;"
  } | psql "$URL" -qAt 2>&1 | grep -v '^$'
  echo '```'
  echo
}

REVIEW_BEFORE="SELECT o.order_no, o.borrower_id, b.phone_masked, o.product_code, o.product_name, o.term_code, o.currency,
  o.amount, o.apr, o.apr_display, o.created_at, o.claimed_by, op.username AS claimed_by_username, o.claimed_until
  FROM orders o JOIN borrowers b ON b.id = o.borrower_id LEFT JOIN operators op ON op.id = o.claimed_by
  WHERE o.market = 'IN' AND o.status = 'pending_review' ORDER BY o.created_at, o.id LIMIT 50 OFFSET 0"
COUNTS="SELECT market, COUNT(*) AS total, COALESCE(SUM(CASE WHEN claimed_until > $NOW THEN 1 ELSE 0 END), 0) AS claimed
  FROM orders WHERE status = 'pending_review' GROUP BY market ORDER BY market"
PAYOUTS_BEFORE="SELECT o.id AS order_id, o.order_no, o.borrower_id, b.phone_enc, o.product_code, o.product_name,
  o.term_code, o.currency, o.amount, o.net_disbursed,
  COALESCE((SELECT MAX(e.at) FROM order_events e WHERE e.order_id = o.id AND e.status = 'approved'), o.updated_at) AS approved_at,
  a.bank_reference AS pending_reference, a.recorded_by AS pending_by, r.username AS pending_by_name, a.recorded_at AS pending_at
  FROM orders o JOIN borrowers b ON b.id = o.borrower_id
  LEFT JOIN payout_approvals a ON a.order_id = o.id LEFT JOIN operators r ON r.id = a.recorded_by
  WHERE o.market = 'IN' AND o.status = 'approved' ORDER BY approved_at, o.id LIMIT 200"
PAYOUTS_AFTER="SELECT o.id AS order_id, o.order_no, o.borrower_id, b.phone_masked, o.product_code, o.product_name,
  o.term_code, o.currency, o.amount, o.net_disbursed,
  COALESCE((SELECT MAX(e.at) FROM order_events e WHERE e.order_id = o.id AND e.status = 'approved'), o.updated_at) AS approved_at,
  a.bank_reference AS pending_reference, a.recorded_by AS pending_by, r.username AS pending_by_name, a.recorded_at AS pending_at
  FROM (SELECT id, order_no, borrower_id, product_code, product_name, term_code, currency, amount, net_disbursed, updated_at
        FROM orders WHERE market = 'IN' AND status = 'approved' ORDER BY updated_at, id LIMIT 200) o
  JOIN borrowers b ON b.id = o.borrower_id
  LEFT JOIN payout_approvals a ON a.order_id = o.id LEFT JOIN operators r ON r.id = a.recorded_by
  ORDER BY o.updated_at, o.id"
PAYMENTS="SELECT p.id, p.order_id, o.order_no, p.status, p.amount, p.currency, p.updated_at,
  (SELECT MIN(u.utr) FROM payment_utrs u WHERE u.payment_id = p.id) AS utr
  FROM payments p JOIN orders o ON o.id = p.order_id
  WHERE p.status IN ('verifying', 'held', 'refund_due') AND (NULL::text IS NULL OR p.currency = NULL)
  AND (NULL::text IS NULL OR p.reference = NULL OR o.order_no = NULL
       OR p.id IN (SELECT u.payment_id FROM payment_utrs u WHERE u.utr = NULL))
  ORDER BY p.updated_at, p.id LIMIT 200"
PAYMENT_COUNTS="SELECT currency, status, COUNT(*) FROM payments WHERE status IN ('verifying', 'held', 'refund_due')
  GROUP BY currency, status"
ARREARS_COUNTS="SELECT
  COALESCE(SUM(CASE WHEN oldest_unpaid_due >= '$D7' THEN 1 ELSE 0 END), 0) AS d1_7,
  COALESCE(SUM(CASE WHEN oldest_unpaid_due >= '$D30' AND oldest_unpaid_due < '$D7' THEN 1 ELSE 0 END), 0) AS d8_30,
  COALESCE(SUM(CASE WHEN oldest_unpaid_due >= '$D60' AND oldest_unpaid_due < '$D30' THEN 1 ELSE 0 END), 0) AS d31_60,
  COALESCE(SUM(CASE WHEN oldest_unpaid_due >= '$D90' AND oldest_unpaid_due < '$D60' THEN 1 ELSE 0 END), 0) AS d61_90,
  COALESCE(SUM(CASE WHEN oldest_unpaid_due < '$D90' THEN 1 ELSE 0 END), 0) AS d90_plus
  FROM loan_arrears WHERE market = 'IN' AND oldest_unpaid_due <= '$YESTERDAY'"
ARREARS_PAGE="SELECT a.order_id, o.order_no, o.borrower_id, o.status, o.currency, o.product_name,
  a.oldest_unpaid_due, b.phone_masked, l.plan_json
  FROM loan_arrears a JOIN orders o ON o.id = a.order_id JOIN borrowers b ON b.id = o.borrower_id
  JOIN loans l ON l.order_id = a.order_id
  WHERE a.market = 'IN' AND a.oldest_unpaid_due <= '$YESTERDAY' AND a.oldest_unpaid_due >= ''
  ORDER BY a.oldest_unpaid_due ASC, a.order_id ASC LIMIT 50 OFFSET 0"

echo "Database: $(psql "$URL" -tAc "SELECT pg_size_pretty(pg_database_size(current_database()))"), orders: $(psql "$URL" -tAc 'SELECT COUNT(*) FROM orders'); load average $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "### Review queue, first page"
echo
explain "before" "$REVIEW_BEFORE" drop
explain "after (orders_in_review)" "$REVIEW_BEFORE"
echo "### Review counts"
echo
explain "before" "$COUNTS" drop
explain "after (index-only on orders_in_review)" "$COUNTS"
echo "### Payout list"
echo
explain "before (sorted on the approval looked up per approved order)" "$PAYOUTS_BEFORE" drop
explain "after (the page on orders_awaiting_payout, then its approvals)" "$PAYOUTS_AFTER"
echo "### Repayments queue"
echo
explain "before" "$PAYMENTS" drop
explain "after (payments_waiting)" "$PAYMENTS"
echo "### Repayments counts"
echo
explain "before" "$PAYMENT_COUNTS" drop
explain "after" "$PAYMENT_COUNTS"
echo "### Overdue queue: bucket counts and first page (unchanged statements: loan_arrears_market_due, migration 0034)"
echo
explain "counts" "$ARREARS_COUNTS"
explain "page" "$ARREARS_PAGE"
