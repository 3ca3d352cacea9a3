package console

import (
	"fmt"
	"strings"
	"time"

	"pharaon/game"
)

// Lang is the page's language: French first, English available.
type Lang string

const (
	French  Lang = "fr"
	English Lang = "en"
)

// words are the console's words, French then English. A key missing here
// shows as itself (TestWordsComplete finds the templates' keys).
var words = map[string][2]string{
	"title":          {"Console de la flotte", "Fleet console"},
	"fleet":          {"Bornes", "Kiosks"},
	"charts":         {"Ventes", "Sales"},
	"alarms":         {"Alarmes", "Alarms"},
	"vouchers":       {"Tickets", "Vouchers"},
	"blocks":         {"Blocs", "Blocks"},
	"updates":        {"Mises à jour", "Updates"},
	"audit":          {"Journal", "Audit log"},
	"report":         {"Rapport du jour", "Daily report"},
	"logout":         {"Se déconnecter", "Log out"},
	"login":          {"Connexion", "Log in"},
	"name":           {"Nom", "Name"},
	"password":       {"Mot de passe", "Password"},
	"login_refused":  {"Nom ou mot de passe inconnu.", "Unknown name or wrong password."},
	"login_locked":   {"Trop d’essais : réessayez dans 15 minutes.", "Too many tries: try again in 15 minutes."},
	"kiosk":          {"Borne", "Kiosk"},
	"groups":         {"Groupes", "Groups"},
	"group":          {"Groupe", "Group"},
	"state":          {"État", "State"},
	"in_service":     {"En service", "In service"},
	"out_of_service": {"Hors service", "Out of service"},
	"offline_since":  {"Hors ligne depuis", "Offline since"},
	"credit":         {"Crédit", "Credit"},
	"paper":          {"Papier", "Paper"},
	"validator":      {"Monnayeur", "Validator"},
	"units_left":     {"Billets restants", "Units left"},
	"version":        {"Logiciel", "Software"},
	"last_record":    {"Dernier relevé", "Last record"},
	"problems":       {"Problèmes", "Problems"},
	"filter":         {"Filtrer", "Filter"},
	"all":            {"Toutes", "All"},
	"search":         {"Chercher", "Search"},
	"csv":            {"Exporter en CSV", "Export as CSV"},
	"ok":             {"bon", "ok"},
	"out":            {"vide", "out"},
	"fault":          {"en panne", "fault"},
	"unknown":        {"—", "—"},
	"kiosks_n":       {"bornes", "kiosks"},
	"waiting":        {"Lecture des relevés en cours…", "Reading the records…"},
	"from":           {"Du", "From"},
	"to":             {"au", "to"},
	"by_day":         {"par jour", "by day"},
	"by_week":        {"par semaine", "by week"},
	"stake":          {"Mise", "Stake"},
	"plays":          {"Parties", "Plays"},
	"sales":          {"Ventes", "Sales"},
	"wins":           {"Gains", "Prizes"},
	"notes":          {"Billets de banque", "Notes taken"},
	"payout":         {"Taux de retour", "Payout ratio"},
	"regulated":      {"Taux réglementaire", "Regulated ratio"},
	"total":          {"Total", "Total"},
	"period":         {"Période", "Period"},
	"by_block":       {"Par bloc", "By block"},
	"blocks_pick":    {"Choisissez une borne ou un groupe pour voir ses blocs.", "Pick a kiosk or a group to see its blocks."},
	"block":          {"Bloc", "Block"},
	"show":           {"Afficher", "Show"},
	"kind":           {"Nature", "Kind"},
	"detail":         {"Détail", "Detail"},
	"raised":         {"Levée", "Raised"},
	"acknowledged":   {"Acquittée", "Acknowledged"},
	"acknowledge":    {"Acquitter", "Acknowledge"},
	"open_alarms":    {"alarmes ouvertes", "open alarms"},
	"by":             {"par", "by"},
	"validation":     {"Numéro du ticket", "Voucher number"},
	"lookup":         {"Vérifier", "Check"},
	"pay":            {"Payer", "Pay"},
	"payable":        {"PAYABLE", "PAYABLE"},
	"not_payable":    {"NON PAYABLE", "NOT PAYABLE"},
	"paid":           {"PAYÉ", "PAID"},
	"refused":        {"REFUSÉ", "REFUSED"},
	"unknown_v":      {"INCONNU", "UNKNOWN"},
	"invalid_v":      {"NUMÉRO INVALIDE", "INVALID NUMBER"},
	"amount":         {"Montant", "Amount"},
	"expires":        {"Expire", "Expires"},
	"send_block":     {"Envoyer un bloc", "Send a block"},
	"block_file":     {"Fichier du bloc signé", "Signed block file"},
	"send":           {"Envoyer", "Send"},
	"sent":           {"ENVOYÉ", "SENT"},
	"deliveries":     {"Livraisons", "Deliveries"},
	"stock":          {"Stock de billets", "Stock of units"},
	"open":           {"ouvert", "open"},
	"queued":         {"en attente", "queued"},
	"exhausted":      {"épuisé", "exhausted"},
	"withdrawn":      {"retiré", "withdrawn"},
	"operator":       {"Opérateur", "Operator"},
	"role":           {"Rôle", "Role"},
	"action":         {"Action", "Action"},
	"object":         {"Objet", "Object"},
	"outcome":        {"Résultat", "Outcome"},
	"at":             {"À", "At"},
	"denied":         {"Votre rôle ne permet pas cette action.", "Your role does not allow this."},
	"bad_request":    {"Demande refusée", "Request refused"},
	"day":            {"Jour", "Day"},
	"print":          {"Imprimer", "Print"},
	"updates_later": {"Le déploiement progressif des mises à jour (lancer, suivre, arrêter) prendra place ici ; en attendant : pharaon-central updates.",
		"The staged rollout of updates (start, follow, stop) takes its place here; until then: pharaon-central updates."},
	"alarm_out_of_service": {"Hors service", "Out of service"},
	"alarm_paper":          {"Papier", "Paper"},
	"alarm_units_low":      {"Billets bas", "Units low"},
	"alarm_records":        {"Relevés manquants ou faux", "Records missing or wrong"},
	"alarm_rolled_back":    {"Retour en arrière", "Rolled back"},
	"alarm_paid_twice":     {"Ticket payé deux fois", "Voucher paid twice"},
	"alarm_silent":         {"Silencieuse", "Stopped reporting"},
	"to_kiosk":             {"à la borne", "to kiosk"},
	"to_group":             {"au groupe", "to group"},
	"live":                 {"en direct", "live"},
}

// T is key's word in lang.
func T(lang Lang, key string) string {
	w, ok := words[key]
	if !ok {
		return key
	}
	if lang == English {
		return w[1]
	}
	return w[0]
}

// Money formats cents in lang: "3 750 €" with non-breaking spaces in
// French, "€3,750" in English, as the kiosk and the commands do.
func Money(lang Lang, cents int64) string {
	if lang == English {
		return game.Money(cents).English()
	}
	return game.Money(cents).French()
}

// Percent formats a ratio with three decimals: "69,857 %" (a narrow
// non-breaking space before the sign in French), "69.857%".
func Percent(lang Lang, r float64) string {
	s := fmt.Sprintf("%.3f", r*100)
	if lang == English {
		return s + "%"
	}
	return strings.Replace(s, ".", ",", 1) + "\u202f%"
}

// Date formats t (UTC) as the page's language writes a date and time.
func Date(lang Lang, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	if lang == English {
		return t.UTC().Format("2006-01-02 15:04 UTC")
	}
	return t.UTC().Format("02/01/2006 15:04 UTC")
}
