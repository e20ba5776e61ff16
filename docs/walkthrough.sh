#!/usr/bin/env bash
# The README's walk-through: an event, tickets, a scanner, check-ins. Stops at the first failed step.
# Needs curl, jq and node; ISSUER and ADMIN_TOKEN may be set, as below.
set -euo pipefail
ISSUER=${ISSUER:-http://localhost:8080}
ADMIN="Authorization: Bearer ${ADMIN_TOKEN:-walkthrough-admin-token-0123456789}"
JSON="Content-Type: application/json"
# curl -f fails on an HTTP error (and prints it), jq -e fails on a missing field: no step runs on a null.
post() { curl -fsS -X POST "$ISSUER$1" -H "$JSON" "${@:2}"; }
uuid() { node -e 'console.log(crypto.randomUUID())'; }
TOMORROW=$(node -e 'console.log(new Date(Date.now() + 864e5).toISOString().slice(0, 10))')
NOW=$(node -e 'console.log(new Date().toISOString())')

# 1. Create an event (tomorrow evening) and issue three tickets.
EID=$(post /admin/v1/events -H "$ADMIN" \
  -d "{\"name\":\"Summer Festival\",\"event_date\":\"${TOMORROW}T18:00:00Z\"}" | jq -er .eid)
post "/admin/v1/events/$EID/tickets" -H "$ADMIN" -d '{"tickets":[{"holder_name":"Ada Lovelace","ticket_type":"GA"},
  {"holder_name":"Alan Turing","ticket_type":"VIP"},{"holder_name":"Grace Hopper","ticket_type":"GA"}]}' > tickets.json
TID=$(jq -er '.tickets[0].tid' tickets.json)

# 2. Create an enrolment token for the scanner at the north gate (its setup QR comes with it).
TOKEN=$(post "/admin/v1/events/$EID/enrollment-tokens" -H "$ADMIN" -d '{"gate_id":"north"}' | jq -er .token)

# 3. The scanner enrols with it and receives its API key.
SCANNER_ID=$(uuid)
API_KEY=$(post /api/v1/scanners/enroll \
  -d "{\"token\":\"$TOKEN\",\"scanner_id\":\"$SCANNER_ID\",\"scanner_name\":\"North gate 1\"}" | jq -er .api_key)
SCANNER="Authorization: Bearer $API_KEY"

# 4. Check the ticket in; the same request again is a replay with the same answer.
SCAN="{\"tid\":\"$TID\",\"eid\":\"$EID\",\"scanned_at\":\"$NOW\",\"scanner_id\":\"$SCANNER_ID\",\"gate_id\":\"north\",\"idempotency_key\":\"$(uuid)\"}"
post /api/v1/tickets/check-in -H "$SCANNER" -d "$SCAN" | jq -c .
post /api/v1/tickets/check-in -H "$SCANNER" -d "$SCAN" | jq -c .

# 5. A second scan of the same ticket (a new idempotency key) is a double scan: already_used.
post /api/v1/tickets/check-in -H "$SCANNER" -d "$(jq -c --arg k "$(uuid)" '.idempotency_key = $k' <<<"$SCAN")" | jq -c .

# 6. Read the ticket's state, the event's counters and its scan log.
curl -fsS "$ISSUER/api/v1/tickets/$TID/status" -H "$SCANNER" | jq -c .
curl -fsS "$ISSUER/admin/v1/events/$EID" -H "$ADMIN" | jq -c .counters
curl -fsS "$ISSUER/admin/v1/events/$EID/scans" -H "$ADMIN" | jq -c '.scans[] | [.outcome, .replay]'
