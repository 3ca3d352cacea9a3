package maint

import "pharaon/kiosk/ui"

// The words of the event log's codes and sources. The kiosk, the store,
// the fleet and the maintenance screen log an event with a code
// (store.Event.Code) and a detail for the technician in the developers'
// words; the screens show the code's words in the screen's language, and
// the detail under them as a technical detail (events.go). A fault is
// logged with its code too (kiosk.Fault…), and the fault view says it in
// the same words (fault.go). TestEveryEventCodeHasWords reads the sources
// of the kiosk, the store and the fleet for every code they log.

// eventWords say what an event is, by its code.
var eventWords = map[string]text{
	// The store's own (store/events.go and the store's writes).
	"block_imported":       {"Bloc importé", "Block imported"},
	"block_opened":         {"Bloc mis en vente", "Block put on sale"},
	"block_exhausted":      {"Bloc épuisé\u00a0: toutes ses unités de jeu sont vendues", "Block sold out: all its game units are sold"},
	"block_withdrawn":      {"Bloc retiré de la vente", "Block withdrawn from sale"},
	"block_refused":        {"Fichier de bloc refusé", "Block file refused"},
	"setting_changed":      {"Réglage modifié", "Setting changed"},
	"anchor_created":       {"Première ancre des données créée", "First anchor of the data created"},
	"cash_collected":       {"Caisse relevée", "Cash box collected"},
	"handpay_locked":       {"Paiement manuel\u00a0: borne bloquée jusqu’au paiement par le personnel", "Hand-pay: kiosk locked until the staff pay"},
	"intent_held":          {"Billet en attente du personnel\u00a0: il est peut-être dans la caisse sans avoir été crédité", "Note held for staff: it may be in the cash box without a credit"},
	"held_intent_credited": {"Billet en attente crédité par le personnel", "Held note credited by staff"},
	"held_intent_closed":   {"Billet en attente clos sans crédit", "Held note closed without credit"},

	// The player's protection (kiosk/protection.go, store/session.go).
	"limit_set":                {"Limite de billets fixée par le joueur", "Limit on notes set by the player"},
	"reality_check":            {"Point sur le jeu présenté au joueur", "Reality check shown to the player"},
	"reality_check_dismissed":  {"Point sur le jeu\u00a0: le joueur continue", "Reality check: the player plays on"},
	"limit_reached":            {"Limite de billets de la session atteinte", "Limit on the session’s notes reached"},
	"notes_stopped":            {"Billets refusés jusqu’à la fin de la session", "Notes refused until the session ends"},
	"limit_unrecorded":         {"Limite atteinte non enregistrée", "Limit reached not recorded"},
	"reality_check_unrecorded": {"Point sur le jeu non enregistré", "Reality check not recorded"},
	"session_unread":           {"Session du joueur illisible", "Player’s session unreadable"},

	// The PINs and the sessions (kiosk/access.go, store/credentials.go).
	"pin_set":           {"Code d’accès enregistré", "PIN set"},
	"pin_revoked":       {"Code d’accès révoqué", "PIN revoked"},
	"login":             {"Connexion à la maintenance", "Maintenance login"},
	"logout":            {"Fin de la session de maintenance", "Maintenance session ended"},
	"pin_wrong":         {"Code d’accès incorrect", "Wrong PIN"},
	"pin_locked":        {"Trop de codes incorrects\u00a0: clavier bloqué", "Too many wrong PINs: keypad locked"},
	"pin_refused":       {"Code refusé\u00a0: clavier bloqué, ou borne en défaut", "PIN refused: keypad locked, or kiosk in fault"},
	"pin_attempts_lost": {"Essais de code non enregistrés\u00a0: la base de données refusait les écritures", "PIN attempts not recorded: the database refused writes"},

	// The faults: the kiosk goes out of service (kiosk/machine.go,
	// kiosk/devices.go).
	"integrity":          {"Les données n’ont pas passé leur contrôle\u00a0: borne hors service", "The data failed their check: kiosk out of service"},
	"store":              {"La base de données refuse les écritures\u00a0: borne hors service", "The database refuses writes: kiosk out of service"},
	"reveal_mismatch":    {"Une partie n’a pas révélé le résultat de son unité de jeu\u00a0; le gain de l’unité a été crédité", "A game did not reveal its game unit’s outcome; the unit’s prize was credited"},
	"recovery":           {"Une partie interrompue n’a pas pu être reprise\u00a0: borne hors service", "An interrupted game could not be resumed: kiosk out of service"},
	"anchor":             {"Les données ne correspondent plus à leur ancre\u00a0: borne hors service", "The data no longer match their anchor: kiosk out of service"},
	"rollback":           {"Les données ont été remplacées par une copie plus ancienne\u00a0: borne hors service", "The data were replaced by an older copy: kiosk out of service"},
	"software":           {"Le logiciel n’est pas celui du paquet signé installé\u00a0: borne hors service", "The program is not the one of the signed package installed: kiosk out of service"},
	"database_missing":   {"Base de données absente\u00a0: borne hors service", "Database missing: kiosk out of service"},
	"not_installed":      {"Borne neuve non installée\u00a0: démarrez-la en première installation", "New kiosk not installed: start it as a first install"},
	"issuer_keys":        {"Clé d’émetteur illisible dans la configuration\u00a0: borne hors service", "An issuer key of the configuration cannot be read: kiosk out of service"},
	"validator_check":    {"Le lecteur de billets n’a pas répondu correctement au contrôle\u00a0: borne hors service", "The bill validator did not answer the check properly: kiosk out of service"},
	"printer_check":      {"L’imprimante n’a pas répondu au contrôle ou ne peut pas imprimer\u00a0: borne hors service", "The printer did not answer the check or cannot print: kiosk out of service"},
	"validator_identity": {"Contrôle au démarrage\u00a0: ce que le lecteur de billets dit être (protocole, modèle, numéro, version)", "Start-up check: what the bill validator says it is (protocol, model, number, version)"},

	// The kiosk (kiosk/*.go).
	"bad_setting":          {"Réglage incorrect ignoré", "Bad setting ignored"},
	"credit_resync":        {"Crédit affiché corrigé d’après le registre", "Credit shown corrected from the ledger"},
	"events_dropped":       {"Évènements des appareils non enregistrés\u00a0: disque trop lent", "Device events not logged: disk too slow"},
	"expiry_failed":        {"Les bons de paiement expirés n’ont pas pu être marqués", "The expired vouchers could not be marked"},
	"maintenance_on":       {"Écran de maintenance ouvert\u00a0: jeu et billets fermés", "Maintenance screen open: play and notes closed"},
	"maintenance_off":      {"Écran de maintenance fermé\u00a0: jeu et billets rouverts", "Maintenance screen closed: play and notes open again"},
	"play_resumed":         {"Partie reprise après un redémarrage", "Game resumed after a restart"},
	"recording_unusable":   {"Enregistrement de la partie illisible\u00a0: le mur repart en Auto", "Game recording unreadable: the wall starts again in Auto"},
	"snapshot_failed":      {"Relevé des compteurs non enregistré", "Meter snapshot not recorded"},
	"pin_attempts_waiting": {"Essais de code encore en attente d’enregistrement", "PIN attempts still waiting to be recorded"},
	"block_taken":          {"Bloc refusé\u00a0: déjà en vente à une autre borne de la flotte", "Block refused: already on sale at another kiosk of the fleet"},
	"block_unclaimed":      {"Bloc importé sans réponse du centre de la flotte\u00a0: il lui sera déclaré à son retour", "Block imported while the fleet’s centre did not answer: declared to it when it answers"},

	// The bank notes (kiosk/cash_in.go, kiosk/cash.go, kiosk/testmode.go).
	"intent_failed":      {"Billet rendu\u00a0: son passage n’a pas pu être enregistré", "Note returned: it could not be recorded"},
	"intent_hold_failed": {"Un billet à mettre en attente du personnel n’a pas pu être enregistré", "A note to hold for staff could not be recorded"},
	"intent_void_failed": {"Un billet rendu n’a pas pu être enregistré comme tel", "A note returned could not be recorded as such"},
	"intent_pending":     {"Billet en cours au démarrage\u00a0: réglé par le prochain état du lecteur", "Note in progress at start: settled by the validator’s next report"},
	"intents_held":       {"Billets en attente du personnel au démarrage", "Notes held for staff at start"},
	"credit_repeated":    {"Billet déjà crédité\u00a0: rien de plus n’est crédité", "Note already credited: nothing more is credited"},
	"power_up_note":      {"Billet dans le lecteur à sa mise sous tension, rien à créditer", "Note in the validator at its power-up, nothing to credit"},
	"power_up_mismatch":  {"Billet inattendu à la mise sous tension du lecteur", "Unexpected note at the validator’s power-up"},
	"power_up_credit":    {"Billet crédité à sa valeur enregistrée à la mise sous tension du lecteur", "Note credited at its recorded value at the validator’s power-up"},
	"vend_valid_no_code": {"Billet crédité à sa valeur enregistrée après un redémarrage", "Note credited at its recorded value after a restart"},
	"note_anomaly":       {"Anomalie du lecteur de billets", "Bill validator anomaly"},
	"test_note":          {"Mode test\u00a0: billet reconnu et rendu", "Test mode: note recognised and given back"},
	// The validator's own reports (kiosk/cash_in.go, validatorEventCode).
	"connected":      {"Lecteur de billets connecté", "Bill validator connected"},
	"disconnected":   {"Lecteur de billets déconnecté", "Bill validator disconnected"},
	"state":          {"Lecteur de billets\u00a0: nouvel état", "Bill validator: new state"},
	"configured":     {"Lecteur de billets configuré", "Bill validator configured"},
	"config_error":   {"Lecteur de billets mal configuré\u00a0: il ne prend pas de billet", "Bill validator misconfigured: it takes no note"},
	"escrow":         {"Billet présenté au lecteur", "Note presented to the validator"},
	"credited":       {"Billet crédité", "Note credited"},
	"credit_failed":  {"Billet encaissé mais pas encore crédité", "Note stacked but not credited yet"},
	"ack_repeated":   {"Billet déjà crédité signalé de nouveau par le lecteur", "A note already credited reported again by the validator"},
	"note_returned":  {"Billet accepté puis rendu", "Note accepted, then returned"},
	"line_error":     {"Liaison avec le lecteur de billets perturbée", "Link with the bill validator disturbed"},
	"anomaly":        {"Anomalie du lecteur de billets", "Bill validator anomaly"},
	"note_uncertain": {"Billet peut-être dans la caisse sans avoir été crédité", "Note perhaps in the cash box without a credit"},
	"called":         {"Le lecteur de billets appelle la borne de lui-même", "The bill validator calls the kiosk of its own"},
	"event":          {"Évènement du lecteur de billets", "Bill validator event"},

	// The vouchers and the printer (kiosk/cash_out.go, kiosk/cash.go,
	// kiosk/reports.go).
	"voucher_printed":      {"Bon de paiement imprimé", "Voucher printed"},
	"voucher_reprinted":    {"Duplicata d’un bon de paiement imprimé", "Duplicate of a voucher printed"},
	"test_voucher":         {"Bon d’essai enregistré, annulé, sans valeur", "Test voucher recorded, void, of no value"},
	"test_voucher_printed": {"Bon d’essai imprimé", "Test voucher printed"},
	"voucher_unconfirmed":  {"Bon imprimé mais son débit a échoué\u00a0: bon annulé", "Voucher printed but its debit failed: voided"},
	"voucher_void":         {"Bon annulé au démarrage\u00a0: impression jamais confirmée, crédit conservé", "Voucher voided at start: print never confirmed, credit kept"},
	"voucher_expired":      {"Bon de paiement expiré sans avoir été payé", "Voucher expired unpaid"},
	"print_failed":         {"Bon de paiement non imprimé", "Voucher not printed"},
	"status":               {"État de l’imprimante", "Printer state"},
	"report_failed":        {"Rapport non imprimé", "Report not printed"},

	// The maintenance screen's actions (kiosk/office*.go and the views'
	// Office calls).
	"refused":                  {"Action refusée à la session", "Action refused to the session"},
	"voucher_paid":             {"Bon de paiement payé au comptoir", "Voucher paid at the counter"},
	"voucher_paid_offline":     {"Bon de paiement payé sans réponse du centre de la flotte", "Voucher paid while the fleet’s centre did not answer"},
	"voucher_refused":          {"Paiement d’un bon refusé", "Voucher payment refused"},
	"voucher_claim_left":       {"Le centre de la flotte garde un paiement que la borne n’a pas fait", "The fleet’s centre keeps a payment this kiosk did not make"},
	"reprint":                  {"Duplicata imprimé", "Duplicate printed"},
	"reprint_failed":           {"Duplicata non imprimé", "Duplicate not printed"},
	"handpay_paid":             {"Paiement manuel payé par le personnel", "Hand-pay paid by staff"},
	"handpay_refused":          {"Paiement manuel non enregistré", "Hand-pay not recorded"},
	"import":                   {"Bloc importé depuis la maintenance", "Block imported from maintenance"},
	"import_refused":           {"Import d’un bloc refusé", "Block import refused"},
	"replay":                   {"Partie revue", "Game replayed"},
	"replay_failed":            {"Partie impossible à revoir", "Game cannot be replayed"},
	"report_printed":           {"Rapport imprimé", "Report printed"},
	"test_print":               {"Page de test imprimée", "Test page printed"},
	"first_start_check":        {"Mise en service\u00a0: étape vérifiée", "Commissioning: step checked"},
	"test_print_failed":        {"Page de test non imprimée", "Test page not printed"},
	"paper_refilled":           {"Papier remis, confirmé par l’imprimante", "Paper refilled, confirmed by the printer"},
	"paper_not_confirmed":      {"Papier remis, non confirmé par l’imprimante", "Paper refill not confirmed by the printer"},
	"setting_refused":          {"Réglage refusé", "Setting refused"},
	"identity":                 {"Identité du logiciel consultée", "Software identity read"},
	"validator_test":           {"Test du lecteur de billets", "Bill validator test"},
	"test_mode":                {"Mode test activé ou arrêté", "Test mode on or off"},
	"test_mode_refused":        {"Mode test refusé", "Test mode refused"},
	"system_returned":          {"Retour automatique au système d’avant (le nouveau n’a pas démarré)", "Automatic return to the system before (the new one did not start)"},
	"system_switch":            {"Redémarrage sur le nouveau système (borne libre)", "Restart into the new system (kiosk idle)"},
	"system_switch_failed":     {"Redémarrage sur le nouveau système non fait\u00a0: borne rouverte", "Restart into the new system not done: kiosk open again"},
	"system_status_unreadable": {"État des emplacements système illisible", "System slots’ status unreadable"},
	"fleet_update":             {"Mise à jour envoyée par le centre\u00a0: son issue (installée, refusée, en échec)", "Update sent by the centre: its outcome (installed, refused, failed)"},
	"update_asked":             {"Mise à jour demandée depuis une clé USB", "Update asked from a USB stick"},
	"update_installed":         {"Mise à jour installée depuis une clé USB", "Update installed from a USB stick"},
	"update_refused":           {"Mise à jour refusée", "Update refused"},
	"update_not_installed":     {"Mise à jour non installée", "Update not installed"},
	"logs_export":              {"Journaux exportés sur une clé USB", "Logs exported to a USB stick"},
	"logs_export_failed":       {"Export des journaux échoué", "Logs export failed"},
	"stick_ejected":            {"Clé USB éjectée", "USB stick ejected"},
	"stick_eject_failed":       {"Clé USB non éjectée", "USB stick not ejected"},
	"fault_clear":              {"Remise en service demandée\u00a0: les vérifications repartent", "Return to service asked: the checks run again"},
	"fault_cleared":            {"Défaut levé\u00a0: borne de nouveau en service", "Fault cleared: kiosk back in service"},
	"fault_not_cleared":        {"Défaut non levé\u00a0: les vérifications échouent encore", "Fault not cleared: the checks still fail"},

	// The fleet (kiosk/fleet).
	"block_claim":        {"Bloc déclaré au centre de la flotte", "Block declared to the fleet’s centre"},
	"fleet_block":        {"Livraison d’un bloc par la flotte", "Block delivery from the fleet"},
	"voucher_paid_twice": {"Bon de paiement payé deux fois, ici et ailleurs dans la flotte", "Voucher paid twice, here and elsewhere in the fleet"},
}

// sourceWords name the parts of the kiosk that log events
// (store.Event.Source), and who changed a setting.
var sourceWords = map[string]text{
	"kiosk":       {"Borne", "Kiosk"},
	"store":       {"Données", "Data"},
	"maintenance": {"Maintenance", "Maintenance"},
	"validator":   {"Lecteur de billets", "Bill validator"},
	"printer":     {"Imprimante", "Printer"},
	"fleet":       {"Flotte", "Fleet"},
	"staff":       {"Personnel", "Staff"},
	"technician":  {"Technicien", "Technician"},
	"setup":       {"Premier démarrage", "First start"},
	"dev-seed":    {"Développement", "Development"},
	"player":      {"Joueur", "Player"},
}

// pickWord is e in t's language.
func (t Tr) pickWord(e text) string {
	if t.Lang == ui.English {
		return e.en
	}
	return e.fr
}

// Event says what an event of code is; a code without words (logged by
// an older version, say) is named as an event not described, its code
// kept in the technical detail under it.
func (t Tr) Event(code string) string {
	if e, ok := eventWords[code]; ok {
		return t.pickWord(e)
	}
	return t.T("rpt.events.unknown")
}

// Source names the part of the kiosk that logged an event; a source
// without words shows as it is written.
func (t Tr) Source(source string) string {
	if e, ok := sourceWords[source]; ok {
		return t.pickWord(e)
	}
	return source
}
