// Package console is the operator's web console of the fleet (DESIGN.md
// §11, docs/fleet.md): the kiosks' state, the sales and prizes over time,
// the alarms and their acknowledgement, voucher payment and block sending,
// for the operator's staff, each with an account and a role.
//
// It judges the kiosks' records as the centre's commands do, through
// fleet.Fleet, and it pays and sends through the same functions as
// pharaon-central pay and send-block. It must never trust the browser:
// every role is checked on the server, every POST carries its session's
// CSRF token, and every action is written to the audit log before its
// answer.
package console
