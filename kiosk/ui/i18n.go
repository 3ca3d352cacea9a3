package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
)

// Lang is a language of the screens: French by default (DESIGN.md §8),
// English available from the home screen's toggle.
type Lang uint8

const (
	French Lang = iota
	English
	numLangs
)

// ErrBadLang: not a language of the screens.
var ErrBadLang = errors.New("not a language of the kiosk (fr, en)")

// ParseLang reads "fr" or "en" (case-insensitive).
func ParseLang(s string) (Lang, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "fr":
		return French, nil
	case "en":
		return English, nil
	}
	return French, fmt.Errorf("language %q: %w", s, ErrBadLang)
}

func (l Lang) String() string {
	if l == English {
		return "en"
	}
	return "fr"
}

// msg is the key of a text of the catalogue. Every key is declared in the
// const block below and has a French and an English text (the tests read
// this file and check both).
type msg string

const (
	msgLangFR msg = "lang.fr"
	msgLangEN msg = "lang.en"

	msgTagline        msg = "home.tagline"
	msgRulesTitle     msg = "rules.title"
	msgRulesIntro     msg = "rules.intro"
	msgRulesCombos    msg = "rules.combos"
	msgRulesBonusCell msg = "rules.bonus_cell"
	msgRulesBonus     msg = "rules.bonus"
	msgRulesStones    msg = "rules.stones"
	msgStonePink      msg = "rules.stone_pink"
	msgStoneGreen     msg = "rules.stone_green"
	msgStoneBlue      msg = "rules.stone_blue"
	msgRulesJouer     msg = "rules.jouer"
	msgRulesAuto      msg = "rules.auto"

	msgCredit         msg = "home.credit"
	msgChooseStake    msg = "home.choose_stake"
	msgUnavailable    msg = "home.unavailable"
	msgNothingOnSale  msg = "home.nothing_on_sale"
	msgNoPrinterCap   msg = "home.no_printer"
	msgInsertNote     msg = "home.insert_note"
	msgPlay           msg = "btn.play"
	msgAuto           msg = "btn.auto"
	msgHistory        msg = "btn.history"
	msgCashOut        msg = "btn.cash_out"
	msgAgeBadge       msg = "notice.age_badge"
	msgResponsible    msg = "notice.responsible"
	msgResponsible2   msg = "notice.responsible2"
	msgResponsible3   msg = "notice.responsible3"
	msgErrInsuff      msg = "err.insufficient_credit"
	msgErrUnavailable msg = "err.unavailable"
	msgErrBusy        msg = "err.busy"
	msgErrOutOfSvc    msg = "err.out_of_service"
	msgErrPlay        msg = "err.play"
	msgErrCashBusy    msg = "err.cash_busy"

	msgCashConfirm      msg = "cash.confirm_title"
	msgCashConfirmText  msg = "cash.confirm_text"
	msgCancel           msg = "btn.cancel"
	msgPrint            msg = "btn.print"
	msgDone             msg = "btn.done"
	msgCashPrinting     msg = "cash.printing"
	msgCashPrintingWait msg = "cash.printing_wait"
	msgCashPrintingCap  msg = "cash.printing_caption"
	msgCashOutOff       msg = "cash.off"
	msgVoucherTake      msg = "voucher.take"
	msgVoucherNumber    msg = "voucher.number"
	msgVoucherValid     msg = "voucher.validation"
	msgVoucherExpires   msg = "voucher.expires"
	msgCashNotPrinted   msg = "cash.not_printed"
	msgCashImpossible   msg = "cash.impossible"
	msgCashVoid         msg = "cash.partial_void"
	msgCashNoCredit     msg = "cash.no_credit"
	msgCashError        msg = "cash.error"
	msgNoteReading      msg = "note.reading"
	msgNoteEscrow       msg = "note.escrow"
	msgNoteCredited     msg = "note.credited"
	msgNoteCredit       msg = "note.credit"
	msgNoteReturned     msg = "note.returned"
	msgNotesRefused     msg = "note.refused"
	msgNoteReturnedOf   msg = "note.returned_of"
	msgNotesNoVoucher   msg = "note.refused_no_voucher"
	msgNoteUnknown      msg = "note.not_recognised"
	msgNoteInsertAgain  msg = "note.insert_again"
	msgNoteRefusedAgain msg = "note.refused_again"
	msgNoteTakes        msg = "note.takes"
	msgNotesAccepted    msg = "home.notes_accepted"
	msgMaxCreditShown   msg = "home.max_credit"
	msgStakeShort       msg = "home.stake_short"
	msgStakeNone        msg = "home.stake_none"
	msgListOr           msg = "list.or"
	msgListAnd          msg = "list.and"
	msgAgainShort       msg = "btn.again_short"
	msgAgainOff         msg = "btn.again_unavailable"
	msgAgainHandPay     msg = "btn.again_hand_pay"
	msgDateExpiry       msg = "date.expiry"

	msgCongratsTitle   msg = "congrats.title"
	msgCongratsFound   msg = "congrats.found"
	msgCongratsWin     msg = "congrats.you_win"
	msgBonusIntroTitle msg = "bonus.intro_title"
	msgBonusIntroText  msg = "bonus.intro_text"
	msgBonusWinTitle   msg = "bonus.win_title"
	msgBonusWinText    msg = "bonus.win_text"
	msgBonusWinAmount  msg = "bonus.win_amount"
	msgResultTotal     msg = "result.total"
	msgResultCredited  msg = "result.credited"
	msgResultHandPay   msg = "result.hand_pay"
	msgLoseText        msg = "result.lose"
	msgContinue        msg = "btn.continue"
	msgAgain           msg = "btn.again"
	msgHome            msg = "btn.home"
	msgClose           msg = "btn.close"
	msgBack            msg = "btn.back"

	msgPrizeTitle  msg = "prize.title"
	msgPrizeCombo  msg = "prize.col_combination"
	msgPrizeAmount msg = "prize.col_amount"
	msgPrizeLots   msg = "prize.col_lots"
	msgPrizeFooter msg = "prize.footer"

	msgHistoryTitle   msg = "history.title"
	msgHistorySince   msg = "history.since"
	msgModeJouerAuto  msg = "mode.jouer_auto"
	msgHistorySub     msg = "history.subtitle"
	msgHistoryDate    msg = "history.col_date"
	msgHistoryStake   msg = "history.col_stake"
	msgHistoryMode    msg = "history.col_mode"
	msgHistoryOutcome msg = "history.col_outcome"
	msgHistoryWon     msg = "history.col_won"
	msgHistoryLast    msg = "history.last"
	msgHistoryEmpty   msg = "history.empty"
	msgHistoryLost    msg = "history.lost"
	msgHistoryBonus   msg = "history.bonus"
	msgHistoryPending msg = "history.pending"
	msgHistoryError   msg = "history.error"
	msgModeJouer      msg = "mode.jouer"
	msgModeAuto       msg = "mode.auto"
	msgDateFormat     msg = "date.format"
	msgGameStake      msg = "game.stake"
	msgGameCredit     msg = "game.credit"
	msgGameAuto       msg = "game.auto"
	msgGameRedBrick   msg = "game.red_brick"
	msgDevBadge       msg = "dev.badge"
	msgDevHint        msg = "dev.hint"
	msgDevFake        msg = "dev.counterfeit"
	msgDevFaults      msg = "dev.faults"
	msgDevFaultsTitle msg = "dev.faults_title"
	msgDevValidator   msg = "dev.validator"
	msgDevPrinter     msg = "dev.printer"
	msgDevRepair      msg = "dev.repair"
	msgDevInserted    msg = "dev.inserted"
	msgDevFakeIn      msg = "dev.counterfeit_in"
	msgDevCaused      msg = "dev.caused"
	msgDevRepaired    msg = "dev.repaired"
	msgDevFailed      msg = "dev.failed"
	msgDevError       msg = "dev.error"
	msgOOSTitle       msg = "oos.title"
	msgOOSText        msg = "oos.text"
	msgOOSCredit      msg = "oos.credit"

	// the hand-pay lock's screen (handpay.go)
	msgHandPayTitle   msg = "handpay.title"
	msgHandPayWin     msg = "handpay.win"
	msgHandPayCashOut msg = "handpay.cash_out"
	msgHandPayAmount  msg = "handpay.amount"

	// player protection (protection.go)
	msgSessionLine      msg = "protect.session_line"
	msgMinutes          msg = "protect.minutes"
	msgHoursMinutes     msg = "protect.hours_minutes"
	msgRealityTitle     msg = "protect.reality_title"
	msgRealityPlayed    msg = "protect.reality_played"
	msgRealityNet       msg = "protect.reality_net"
	msgRealityDetail    msg = "protect.reality_detail"
	msgRealityHelp      msg = "protect.reality_help"
	msgRealityContinue  msg = "protect.reality_continue"
	msgLimitButton      msg = "protect.limit_button"
	msgLimitSet         msg = "protect.limit_set"
	msgLimitTitle       msg = "protect.limit_title"
	msgLimitText        msg = "protect.limit_text"
	msgLimitTextSession msg = "protect.limit_text_session"
	msgLimitNow         msg = "protect.limit_now"
	msgLimitNone        msg = "protect.limit_none"
	msgLimitRaise       msg = "protect.limit_raise"
	msgLimitFailed      msg = "protect.limit_failed"

	// the timeouts' warning (timeouts.go)
	msgTimeHome   msg = "time.home"
	msgTimeCloses msg = "time.closes"
	msgMoreTime   msg = "time.more"

	// the restart into a new system's screen (restart.go)
	msgRestartTitle   msg = "restart.title"
	msgRestartText    msg = "restart.text"
	msgFaultIntegrity msg = "fault.integrity"
	msgFaultStore     msg = "fault.store"
	msgFaultMismatch  msg = "fault.reveal_mismatch"
	msgFaultRecovery  msg = "fault.recovery"
	msgFaultUnknown   msg = "fault.unknown"
	msgFaultNoDB      msg = "fault.database_missing"
	msgFaultNew       msg = "fault.not_installed"
	msgFaultKeys      msg = "fault.issuer_keys"
	msgFaultAnchor    msg = "fault.anchor"
	msgFaultRollback  msg = "fault.rollback"
	msgFaultSoftware  msg = "fault.software"
	msgFaultValidator msg = "fault.validator"
	msgFaultPrinter   msg = "fault.printer"
	msgAttractTouch   msg = "attract.touch"
	msgAttractDemo    msg = "attract.demo"
	msgBootTitle      msg = "boot.title"
	msgBootOpen       msg = "boot.open"
	msgBootStore      msg = "boot.store"
	msgBootBlocks     msg = "boot.blocks"
	msgBootDevices    msg = "boot.devices"
	msgBootRecovery   msg = "boot.recovery"
	msgBootCredit     msg = "boot.credit"
	msgBootCash       msg = "boot.cash"
	msgSymBirdOne     msg = "sym.bird.1"
	msgSymBirdMany    msg = "sym.bird.n"
	msgSymScarabOne   msg = "sym.scarab.1"
	msgSymScarabMany  msg = "sym.scarab.n"
	msgSymCrossOne    msg = "sym.cross.1"
	msgSymCrossMany   msg = "sym.cross.n"
	msgSymHeadOne     msg = "sym.head.1"
	msgSymHeadMany    msg = "sym.head.n"
	msgSymEyeOne      msg = "sym.eye.1"
	msgSymEyeMany     msg = "sym.eye.n"
	msgSymSnakeOne    msg = "sym.snake.1"
	msgSymSnakeMany   msg = "sym.snake.n"
	msgCountSymbols   msg = "sym.count"

	// What the game screen says to do: tap the ball, the idle countdown
	// before Auto, the button that finishes the wall in Auto and under it
	// when it will be offered (the seconds, and the bricks left that offer
	// it, play.FinishBricks; the bonus wall, the seconds alone) or, offered, what Auto does (Art. 4.1), a game
	// resumed after a restart.
	msgGameTapBall         msg = "game.tap_ball"
	msgGameAutoIn          msg = "game.auto_in"
	msgGameFinishAuto      msg = "game.finish_auto"
	msgGameFinishWait      msg = "game.finish_wait"
	msgGameFinishWaitBonus msg = "game.finish_wait_bonus"
	msgGameFinishDoes      msg = "game.finish_does"
	msgGameResumed         msg = "game.resumed"

	// The development panel's way to maintenance and its demo PINs.
	msgDevPINs msg = "dev.pins"

	// The voice (voice.go): its button, and the sentences that sum up a
	// screen or say a change (amounts in words, Tr.Spoken).
	msgVoice          msg = "voice.button"
	msgLargeText      msg = "large.button"
	msgSayBallLeft    msg = "say.ball_left"
	msgSayBallAbove   msg = "say.ball_above"
	msgSayBallRight   msg = "say.ball_right"
	msgSayDownLeft    msg = "say.down_left"
	msgSayDownAbove   msg = "say.down_above"
	msgSayDownRight   msg = "say.down_right"
	msgSayJouerKeys   msg = "say.jouer_keys"
	msgLargeCombos    msg = "large.combos"
	msgSayLargeOn     msg = "say.large_on"
	msgSayLargeOff    msg = "say.large_off"
	msgVoiceVolume    msg = "voice.button_volume"
	msgSayVoiceOn     msg = "say.voice_on"
	msgSayVolume      msg = "say.volume"
	msgSayHome        msg = "say.home"
	msgSaySession     msg = "say.session"
	msgSayStake       msg = "say.stake"
	msgSayInsert      msg = "say.insert"
	msgSayPlay        msg = "say.play"
	msgSayCashOut     msg = "say.cash_out"
	msgSayGame        msg = "say.game"
	msgSayMoreTime    msg = "say.more_time"
	msgSayTimeHome    msg = "say.time_home"
	msgSayTimeCloses  msg = "say.time_closes"
	msgSayAutoIn      msg = "say.auto_in"
	msgSaySecond      msg = "say.second"
	msgSaySeconds     msg = "say.seconds"
	msgSayButtons     msg = "say.buttons"
	msgSayHour        msg = "say.hour"
	msgSayHours       msg = "say.hours"
	msgSayMinute      msg = "say.minute"
	msgSayMinutes     msg = "say.minutes"
	msgSayUnderMinute msg = "say.under_minute"
	msgSayNetUp       msg = "say.net_up"
	msgSayNetDown     msg = "say.net_down"
	msgSayNumber      msg = "say.number"
	msgSayButton      msg = "say.button"
	msgSayButtonOff   msg = "say.button_off"
	msgSayChosen      msg = "say.chosen"
	msgSaySofter      msg = "say.softer"
	msgSayLouder      msg = "say.louder"
	msgSayFrench      msg = "say.french"
	msgSayEnglish     msg = "say.english"
	msgSayEndingIn    msg = "say.ending_in"
)

// text is one entry of the catalogue: French first.
type text struct{ fr, en string }

// catalogue holds every text the player reads. Amounts are never typed in a
// text: they come from game.Table and game.Money (DESIGN.md invariant 5), and
// the texts only place them (%s).
var catalogue = map[msg]text{
	msgVoice:        {"Voix", "Voice"},
	msgLargeText:    {"Grands caractères", "Large text"},
	msgSayBallLeft:  {"La balle est à gauche de la raquette.", "The ball is to the left of the paddle."},
	msgSayBallAbove: {"La balle est au-dessus de la raquette.", "The ball is above the paddle."},
	msgSayBallRight: {"La balle est à droite de la raquette.", "The ball is to the right of the paddle."},
	msgSayDownLeft:  {"À gauche.", "Left."},
	msgSayDownAbove: {"Au-dessus.", "Above."},
	msgSayDownRight: {"À droite.", "Right."},
	msgSayJouerKeys: {"Jouer au clavier\u00a0: 4 et 6 déplacent la raquette, 5 lance la balle, 1 dit où est la balle\u00a0; quand la balle redescend, la voix dit de quel côté de la raquette.",
		"Playing by keys: 4 and 6 move the paddle, 5 launches the ball, 1 says where the ball is; when the ball comes down, the voice says on which side of the paddle."},
	msgLargeCombos: {"Gains pour une mise de %s", "Prizes for a %s stake"},
	msgSayLargeOn:  {"Grands caractères activés.", "Large text on."},
	msgSayLargeOff: {"Grands caractères désactivés.", "Large text off."},
	msgVoiceVolume: {"Voix\u00a0%d\u00a0%%", "Voice %d%%"},
	msgSayVoiceOn: {"Voix activée, volume %d. Les boutons plus et moins à côté de Voix règlent le volume.",
		"Voice on, volume %d. The plus and minus buttons beside Voice set the volume."},
	msgSayVolume:  {"Volume %d.", "Volume %d."},
	msgSayHome:    {"Accueil. Crédit\u00a0: %s.", "Home screen. Credit: %s."},
	msgSaySession: {"Session\u00a0: %s, bilan\u00a0: %s.", "Session: %s, net: %s."},
	msgSayStake:   {"Mise choisie\u00a0: %s.", "Stake chosen: %s."},
	msgSayInsert:  {"Insérez un billet\u00a0: %s.", "Insert a note: %s."},
	msgSayPlay: {"Touchez Jouer pour casser les briques vous-même, ou Auto pour que le jeu les casse pour vous.",
		"Tap Play to break the bricks yourself, or Auto to have the game break them for you."},
	msgSayCashOut:    {"Encaisser imprime un bon de paiement de votre crédit.", "Cash out prints a payment voucher for your credit."},
	msgSayGame:       {"Partie à %s, en mode %s. Crédit restant\u00a0: %s.", "Game at %s, in %s mode. Credit left: %s."},
	msgSayMoreTime:   {"Touchez Plus de temps pour rester.", "Tap More time to stay."},
	msgSayTimeHome:   {"Retour à l’accueil dans %s.", "Back to the home screen in %s."},
	msgSayTimeCloses: {"Fermeture dans %s.", "Closing in %s."},
	msgSayAutoIn: {"Le jeu passe en Auto dans %s. Touchez le mur ou une touche pour continuer à jouer.",
		"The game goes on in Auto in %s. Touch the wall or a key to keep playing."},
	msgSaySecond:      {"une seconde", "one second"},
	msgSaySeconds:     {"secondes", "seconds"},
	msgSayButtons:     {"Boutons\u00a0: %s.", "Buttons: %s."},
	msgSayHour:        {"une heure", "one hour"},
	msgSayHours:       {"heures", "hours"},
	msgSayMinute:      {"une minute", "one minute"},
	msgSayMinutes:     {"minutes", "minutes"},
	msgSayUnderMinute: {"moins d’une minute", "less than a minute"},
	msgSayNetUp:       {"gain de %s", "up %s"},
	msgSayNetDown:     {"perte de %s", "down %s"},
	msgSayNumber:      {"numéro", "number"},
	msgSayButton:      {"%s, bouton.", "%s, button."},
	msgSayButtonOff:   {"%s, bouton indisponible.", "%s, button, unavailable."},
	msgSayChosen:      {"%s, choisie", "%s, chosen"},
	msgSaySofter:      {"Moins fort", "Softer"},
	msgSayLouder:      {"Plus fort", "Louder"},
	msgSayFrench:      {"Français", "French"},
	msgSayEnglish:     {"Anglais", "English"},
	msgSayEndingIn:    {"se terminant par %s", "ending in %s"},
	msgLangFR:         {"FR", "FR"},
	msgLangEN:         {"EN", "EN"},

	msgTagline:    {"Cassez le mur, découvrez les symboles du pharaon", "Break the wall, uncover the pharaoh's symbols"},
	msgRulesTitle: {"Règle du jeu", "How to play"},
	msgRulesIntro: {
		"Envoyez la balle contre le mur de briques pour le détruire et faire apparaître les symboles cachés dessous. Chaque symbole découvert vient se colorer dans le cartouche, à droite de l’écran.",
		"Send the ball against the wall of bricks to break it and uncover the symbols hidden beneath. Each symbol found lights up in the cartouche on the right of the screen.",
	},
	msgRulesCombos:    {"Combinaisons gagnantes pour une mise de %s", "Winning combinations for a stake of %s"},
	msgRulesBonusCell: {"Jeu Bonus", "Bonus game"},
	msgRulesBonus: {
		"Trois serpents ouvrent le Jeu Bonus\u00a0: touchez deux fois la brique rouge d’un nouveau mur pour découvrir votre gain.",
		"Three snakes open the bonus game: hit the red brick of a new wall twice to uncover your prize.",
	},
	msgRulesStones: {"Pierres magiques, pendant quelques secondes\u00a0:", "Magic stones, for a few seconds:"},
	msgStonePink:   {"raquette élargie", "wider paddle"},
	msgStoneGreen:  {"raquette rétrécie", "narrower paddle"},
	msgStoneBlue:   {"balle aimantée", "sticky ball"},
	msgRulesJouer: {
		"Jouer\u00a0: déplacez la raquette du doigt et touchez la balle pour la lancer, autant de fois qu’il le faut.",
		"Play: move the paddle with your finger and tap the ball to launch it, as often as you need.",
	},
	msgRulesAuto: {
		"Auto\u00a0: le mur se détruit tout seul. Dans les deux cas, le résultat est fixé dès que la mise est débitée.",
		"Auto: the wall breaks by itself. Either way, the result is fixed as soon as the stake is paid.",
	},

	msgCredit:      {"CRÉDIT", "CREDIT"},
	msgChooseStake: {"Choisissez votre mise", "Choose your stake"},
	msgUnavailable: {"indisponible", "unavailable"},
	// No stake on sale: no block loaded, or all sold out or withdrawn.
	msgNothingOnSale: {"Aucun jeu en vente pour le moment (aucun bloc chargé)\u00a0: appelez le personnel.", "No game on sale for now (no block loaded): please call the staff."},
	msgNoPrinterCap:  {"pas d’imprimante", "no printer"},
	msgInsertNote:    {"Insérez un billet pour jouer", "Insert a bank note to play"},
	msgPlay:          {"Jouer", "Play"},
	msgAuto:          {"Auto", "Auto"},
	msgHistory:       {"Historique", "History"},
	msgCashOut:       {"Encaisser", "Cash out"},
	msgAgeBadge:      {"18+", "18+"},
	msgResponsible: {
		"Jeu interdit aux mineurs. Jouer comporte des risques\u00a0: endettement, dépendance… Appelez le 09\u00a074\u00a075\u00a013\u00a013 (appel non surtaxé).",
		"No sale to minors. Gambling involves risks: debt, addiction… Call 09\u00a074\u00a075\u00a013\u00a013 (free of extra charge).",
	},
	msgResponsible2: {
		"Jeu interdit aux mineurs. Jouer comporte des risques\u00a0: isolement, endettement… Appelez le 09\u00a074\u00a075\u00a013\u00a013 (appel non surtaxé).",
		"No sale to minors. Gambling involves risks: isolation, debt… Call 09\u00a074\u00a075\u00a013\u00a013 (free of extra charge).",
	},
	msgResponsible3: {
		"Jeu interdit aux mineurs. Jouer comporte des risques\u00a0: dépendance, isolement… Appelez le 09\u00a074\u00a075\u00a013\u00a013 (appel non surtaxé).",
		"No sale to minors. Gambling involves risks: addiction, isolation… Call 09\u00a074\u00a075\u00a013\u00a013 (free of extra charge).",
	},
	msgErrInsuff:      {"Crédit insuffisant pour une mise de %s\u00a0: insérez un billet.", "Not enough credit for a stake of %s: insert a bank note."},
	msgErrUnavailable: {"La mise de %s n’est pas disponible pour le moment.", "The %s stake is not available at the moment."},
	msgErrBusy:        {"Une partie est déjà en cours.", "A game is already in progress."},
	msgErrOutOfSvc:    {"La borne est hors service.", "The kiosk is out of service."},
	msgErrPlay:        {"La partie n’a pas pu commencer. Adressez-vous au personnel.", "The game could not start. Please ask the staff."},
	msgErrCashBusy: {"Un billet est en cours d’encaissement ou un bon s’imprime\u00a0: réessayez dans un instant.",
		"A bank note is being taken or a voucher printed: try again in a moment."},

	msgCashConfirm:      {"Encaisser %s\u00a0?", "Cash out %s?"},
	msgCashConfirmText:  {"Un bon de paiement va être imprimé.", "A payment voucher will be printed."},
	msgCancel:           {"Annuler", "Cancel"},
	msgPrint:            {"Imprimer", "Print"},
	msgDone:             {"Terminé", "Done"},
	msgCashPrinting:     {"Impression du bon…", "Printing your voucher…"},
	msgCashPrintingWait: {"Attendez la fin de l’impression pour prendre le bon.", "Wait until it is printed before taking it."},
	msgCashPrintingCap:  {"impression en cours", "printing"},
	msgCashOutOff:       {"Encaissement impossible pour le moment\u00a0: %s. Votre crédit est conservé.", "Cash-out not possible for now: %s. Your credit is kept."},
	msgVoucherTake:      {"Prenez votre bon", "Take your voucher"},
	msgVoucherNumber:    {"Bon de paiement n°\u00a0%06d", "Payment voucher no.\u00a0%06d"},
	msgVoucherValid:     {"N° de validation %s", "Validation no. %s"},
	msgVoucherExpires:   {"Valable jusqu’au %s", "Valid until %s"},
	msgCashNotPrinted:   {"Bon non imprimé", "Voucher not printed"},
	msgCashImpossible:   {"Encaissement impossible", "Cash-out not possible"},
	msgCashVoid: {
		"Le bon n’a pas pu être imprimé en entier\u00a0: ce qui en serait sorti n’est pas valable. Réessayez, ou appelez le personnel.",
		"The voucher could not be printed in full: any part of it that came out is not valid. Try again, or call the staff.",
	},
	msgCashNoCredit:   {"Il n’y a pas de crédit à encaisser.", "There is no credit to cash out."},
	msgCashError:      {"Erreur de la borne\u00a0: adressez-vous au personnel.", "Kiosk error: please ask the staff."},
	msgNoteReading:    {"Lecture du billet…", "Reading the note…"},
	msgNoteEscrow:     {"Billet de %s\u00a0: un instant…", "%s note: one moment…"},
	msgNoteCredited:   {"Billet de %s accepté", "%s note accepted"},
	msgNoteCredit:     {"Crédit\u00a0: %s", "Credit: %s"},
	msgNoteReturned:   {"Billet rendu", "Note returned"},
	msgNotesRefused:   {"Billets refusés pour le moment\u00a0: %s", "Bank notes refused for now: %s"},
	msgNoteReturnedOf: {"Billet de %s rendu", "%s note returned"},
	msgNotesNoVoucher: {"Billets refusés pour le moment\u00a0: aucun bon de paiement ne peut être imprimé (%s)",
		"Bank notes refused for now: no payment voucher can be printed (%s)"},
	msgNoteUnknown: {"Ce billet n’a pas été reconnu. Vérifiez-le et réessayez, ou adressez-vous au personnel.",
		"This note was not recognised. Check it and try again, or ask the staff."},
	msgNoteInsertAgain:  {"Le billet n’a pas pu être lu\u00a0: réinsérez-le bien à plat et lâchez-le.", "The note could not be read: insert it again, flat, and let it go."},
	msgNoteRefusedAgain: {"Le billet a été rendu\u00a0: réessayez dans un instant.", "The note came back: try again in a moment."},
	msgNoteTakes:        {"Cette borne prend les billets de %s.", "This kiosk takes %s notes."},
	msgNotesAccepted:    {"Billets acceptés\u00a0: %s", "Notes taken: %s"},
	msgMaxCreditShown:   {"Crédit maximum\u00a0: %s", "Maximum credit: %s"},
	msgStakeShort:       {"Votre crédit de %s ne couvre pas la mise de %s\u00a0: choisissez %s.", "Your credit of %s does not cover the %s stake: choose %s."},
	msgStakeNone:        {"Votre crédit de %s ne couvre aucune mise\u00a0: insérez un billet.", "Your credit of %s covers no stake: insert a bank note."},
	msgListOr:           {" ou ", " or "},
	msgListAnd:          {" et ", " and "},
	msgAgainShort:       {"crédit insuffisant", "not enough credit"},
	msgAgainOff:         {"mise indisponible", "stake unavailable"},
	msgAgainHandPay:     {"paiement par le personnel", "staff to pay you"},
	msgDateExpiry:       {"02/01/2006 à 15:04", "2 Jan 2006 at 15:04"},

	msgCongratsTitle:   {"Félicitations\u00a0!", "Congratulations!"},
	msgCongratsFound:   {"Vous avez découvert %s", "You uncovered %s"},
	msgCongratsWin:     {"vous gagnez", "you win"},
	msgBonusIntroTitle: {"Jeu Bonus\u00a0!", "Bonus game!"},
	msgBonusIntroText: {
		"Trois serpents\u00a0! Un nouveau mur apparaît\u00a0: touchez deux fois la brique rouge en son centre.",
		"Three snakes! A new wall appears: hit the red brick in its centre twice.",
	},
	msgBonusWinTitle:  {"Jeu Bonus\u00a0: félicitations\u00a0!", "Bonus game: congratulations!"},
	msgBonusWinText:   {"Vous avez touché deux fois la brique rouge.", "You hit the red brick twice."},
	msgBonusWinAmount: {"votre gain au Jeu Bonus", "your bonus game prize"},
	msgResultTotal:    {"montant total de votre gain", "your total win"},
	msgResultCredited: {"Votre gain est ajouté à votre crédit.", "Your win is added to your credit."},
	msgResultHandPay:  {"Votre gain et votre crédit vous sont payés par le personnel.", "Your win and your credit are paid to you by the staff."},
	msgLoseText:       {"Pas de gain cette fois.", "No win this time."},
	msgContinue:       {"Continuer", "Continue"},
	msgAgain:          {"Rejouer %s", "Play again %s"},
	msgHome:           {"Accueil", "Home"},
	msgClose:          {"Fermer", "Close"},
	msgBack:           {"Retour", "Back"},

	msgPrizeTitle:  {"Tableau des gains\u00a0: mise de %s", "Prize table: stake of %s"},
	msgPrizeCombo:  {"Si vous découvrez", "If you uncover"},
	msgPrizeAmount: {"vous gagnez", "you win"},
	msgPrizeLots:   {"lots par bloc", "prizes per block"},
	msgPrizeFooter: {
		"Chaque bloc de %s unités de jeu contient exactement ces lots. Le Jeu Bonus révèle l’un des gains de ce tableau.",
		"Each block of %s game units holds exactly these prizes. The bonus game reveals one of the prizes of this table.",
	},

	msgHistoryTitle:   {"Vos parties", "Your games"},
	msgHistorySince:   {"Vos parties depuis %s", "Your games since %s"},
	msgModeJouerAuto:  {"Jouer puis Auto", "Play, then Auto"},
	msgHistorySub:     {"La dernière partie en premier", "Latest game first"},
	msgHistoryDate:    {"Date", "Date"},
	msgHistoryStake:   {"Mise", "Stake"},
	msgHistoryMode:    {"Mode", "Mode"},
	msgHistoryOutcome: {"Résultat", "Result"},
	msgHistoryWon:     {"Gain", "Won"},
	msgHistoryLast:    {"dernière", "latest"},
	msgHistoryEmpty:   {"Aucune partie pour le moment.", "No game yet."},
	msgHistoryLost:    {"perdante", "no win"},
	msgHistoryBonus:   {"Jeu Bonus", "Bonus game"},
	msgHistoryPending: {"en cours", "in progress"},
	msgHistoryError:   {"L’historique ne peut pas être lu pour le moment.", "The history cannot be read at the moment."},
	msgModeJouer:      {"Jouer", "Play"},
	msgModeAuto:       {"Auto", "Auto"},
	msgDateFormat:     {"02/01/2006 15:04", "2 Jan 2006, 15:04"},

	msgGameStake:    {"MISE", "STAKE"},
	msgGameCredit:   {"CRÉDIT", "CREDIT"},
	msgGameAuto:     {"AUTO", "AUTO"},
	msgGameRedBrick: {"BRIQUE ROUGE", "RED BRICK"},

	msgDevBadge:       {"DÉVELOPPEMENT", "DEVELOPMENT"},
	msgDevHint:        {"simulateurs\u00a0: billets et pannes", "simulators: notes and faults"},
	msgDevFake:        {"Faux", "Fake"},
	msgDevFaults:      {"Pannes", "Faults"},
	msgDevFaultsTitle: {"Simulateurs\u00a0: pannes des appareils", "Simulators: device faults"},
	msgDevValidator:   {"Lecteur de billets\u00a0: %s", "Bill validator: %s"},
	msgDevPrinter:     {"Imprimante\u00a0: %s", "Printer: %s"},
	msgDevRepair:      {"Tout réparer", "Repair all"},
	msgDevInserted:    {"billet de %s inséré", "%s note inserted"},
	msgDevFakeIn:      {"faux billet inséré", "fake note inserted"},
	msgDevCaused:      {"panne\u00a0: %s", "fault: %s"},
	msgDevRepaired:    {"appareils réparés, lecteur réinitialisé", "devices repaired, validator reset"},
	msgDevFailed:      {"refusé\u00a0: %s", "refused: %s"},
	msgDevError:       {"erreur du simulateur (voir le journal)", "simulator error (see the log)"},

	msgOOSTitle:         {"Hors service", "Out of service"},
	msgOOSText:          {"Cette borne est momentanément hors service. Veuillez vous adresser au personnel.", "This kiosk is out of service for the moment. Please ask the staff."},
	msgOOSCredit:        {"Votre crédit de %s est conservé.", "Your credit of %s is kept."},
	msgHandPayTitle:     {"Appelez le personnel", "Please call the staff"},
	msgHandPayWin:       {"Félicitations\u00a0! Votre gain vous est payé en main propre par le personnel. La borne reste bloquée jusqu’au paiement.", "Congratulations! Your win is paid to you by hand by the staff. The kiosk stays locked until it is paid."},
	msgHandPayCashOut:   {"Ce montant vous est payé en main propre par le personnel. La borne reste bloquée jusqu’au paiement.", "This amount is paid to you by hand by the staff. The kiosk stays locked until it is paid."},
	msgHandPayAmount:    {"Montant à vous remettre\u00a0: %s", "Amount to be paid to you: %s"},
	msgRestartTitle:     {"Mise à jour du logiciel", "Software update"},
	msgSessionLine:      {"Session\u00a0: %s · bilan %s", "Session: %s · net %s"},
	msgMinutes:          {"%d\u00a0min", "%d min"},
	msgHoursMinutes:     {"%d\u00a0h\u00a0%02d", "%d h %02d min"},
	msgRealityTitle:     {"Point sur votre jeu", "Time for a break?"},
	msgRealityPlayed:    {"Vous jouez depuis %s.", "You have been playing for %s."},
	msgRealityNet:       {"Bilan de la session\u00a0: %s", "Net result of the session: %s"},
	msgRealityDetail:    {"Billets insérés\u00a0: %s · crédit\u00a0: %s", "Notes put in: %s · credit: %s"},
	msgRealityHelp:      {"Le jeu reprend quand vous le choisissez. Besoin d’aide\u00a0? Joueurs Info Service\u00a0: 09\u00a074\u00a075\u00a013\u00a013 (appel non surtaxé).", "Play resumes when you choose. Need help? Joueurs Info Service: +33\u00a09\u00a074\u00a075\u00a013\u00a013 (standard rate)."},
	msgRealityContinue:  {"Continuer", "Continue"},
	msgLimitButton:      {"Ma limite", "My limit"},
	msgTimeHome:         {"Retour à l’accueil dans %d\u00a0s", "Back to the home screen in %d s"},
	msgTimeCloses:       {"Fermeture dans %d\u00a0s", "Closing in %d s"},
	msgMoreTime:         {"Plus de temps", "More time"},
	msgLimitSet:         {"Limite\u00a0: %s", "Limit: %s"},
	msgLimitTitle:       {"Limite de billets pour la session", "Limit on notes for the session"},
	msgLimitText:        {"Choisissez le montant de billets que vous ne dépasserez pas pendant votre session. Une fois la session commencée, vous pourrez la baisser, jamais la relever.", "Choose the amount of notes you will not go over in your session. Once the session has begun, you can lower it, never raise it."},
	msgLimitTextSession: {"Billets insérés pendant cette session\u00a0: %s. Vous pouvez baisser votre limite, pas la relever.", "Notes put in during this session: %s. You can lower your limit, not raise it."},
	msgLimitNow:         {"Votre limite\u00a0: %s", "Your limit: %s"},
	msgLimitNone:        {"Aucune", "None"},
	msgLimitRaise:       {"Pendant une session, une limite se baisse, elle ne se relève pas.", "During a session, a limit can be lowered, not raised."},
	msgLimitFailed:      {"La limite n’a pas pu être enregistrée\u00a0: adressez-vous au personnel.", "The limit could not be recorded: please ask the staff."},
	msgRestartText:      {"La borne redémarre sur sa nouvelle version et revient dans un instant.", "The kiosk is restarting into its new version and will be back in a moment."},
	msgFaultIntegrity:   {"Le contrôle des données au démarrage a échoué.", "The start-up check of the data failed."},
	msgFaultStore:       {"Les données ne peuvent plus être enregistrées.", "The data can no longer be recorded."},
	msgFaultMismatch:    {"Une anomalie a été détectée pendant une partie\u00a0; son gain a été crédité.", "An anomaly was detected during a game; its prize was credited."},
	msgFaultRecovery:    {"Une partie interrompue n’a pas pu être reprise.", "An interrupted game could not be resumed."},
	msgFaultUnknown:     {"Défaut\u00a0: %s", "Fault: %s"},
	msgFaultNoDB:        {"La base de données de la borne est absente. Un technicien doit la restaurer.", "The kiosk’s database is missing. A technician must restore it."},
	msgFaultNew:         {"Borne neuve, pas encore installée\u00a0: un technicien la démarre une fois en première installation (-first-install).", "A new kiosk, not installed yet: a technician starts it once as a first install (-first-install)."},
	msgFaultAnchor:      {"Les données ne correspondent plus à leur empreinte gardée hors de la base\u00a0: l’historique a pu être tronqué. Un technicien doit intervenir.", "The data no longer match the fingerprint kept outside them: the history may have been cut. A technician must intervene."},
	msgFaultRollback:    {"Les données de la borne ont été remplacées par une copie plus ancienne. Un technicien doit intervenir.", "The kiosk’s data were replaced by an older copy. A technician must intervene."},
	msgFaultSoftware:    {"Le logiciel de la borne n’est pas celui du paquet signé installé. Un technicien doit le réinstaller.", "The kiosk’s program is not the one of the signed package installed. A technician must reinstall it."},
	msgFaultValidator:   {"Le lecteur de billets n’a pas répondu correctement au démarrage. Un technicien doit intervenir.", "The bill validator did not answer properly at start-up. A technician must intervene."},
	msgFaultPrinter:     {"L’imprimante des bons de paiement n’a pas répondu ou ne peut pas imprimer (papier, capot). Un technicien doit intervenir.", "The voucher printer did not answer or cannot print (paper, cover). A technician must intervene."},
	msgFaultKeys:        {"Une clé d’émetteur de la configuration est illisible. Un technicien doit la corriger.", "An issuer key of the configuration cannot be read. A technician must fix it."},

	msgAttractTouch: {"Touchez l’écran pour jouer", "Touch the screen to play"},
	msgAttractDemo:  {"DÉMONSTRATION", "DEMONSTRATION"},

	msgBootTitle:    {"Démarrage de la borne…", "The kiosk is starting…"},
	msgBootOpen:     {"Ouverture des données et des appareils", "Opening the data and the devices"},
	msgBootStore:    {"Contrôle des données et des comptes", "Checking the data and the accounts"},
	msgBootDevices:  {"Contrôle du lecteur de billets et de l’imprimante", "Checking the bill validator and the printer"},
	msgBootBlocks:   {"Contrôle des blocs signés", "Checking the signed blocks"},
	msgBootRecovery: {"Reprise d’une partie interrompue", "Resuming an interrupted game"},
	msgBootCredit:   {"Lecture du crédit et des blocs en vente", "Reading the credit and the blocks on sale"},
	msgBootCash:     {"Mise en service du lecteur de billets et de l’imprimante", "Starting the bill validator and the printer"},

	msgSymBirdOne:    {"oiseau", "bird"},
	msgSymBirdMany:   {"oiseaux", "birds"},
	msgSymScarabOne:  {"scarabée", "scarab"},
	msgSymScarabMany: {"scarabées", "scarabs"},
	msgSymCrossOne:   {"croix", "cross"},
	msgSymCrossMany:  {"croix", "crosses"},
	msgSymHeadOne:    {"tête", "head"},
	msgSymHeadMany:   {"têtes", "heads"},
	msgSymEyeOne:     {"œil", "eye"},
	msgSymEyeMany:    {"yeux", "eyes"},
	msgSymSnakeOne:   {"serpent", "snake"},
	msgSymSnakeMany:  {"serpents", "snakes"},
	msgCountSymbols:  {"%d %s", "%d %s"},

	msgGameTapBall:         {"Touchez la balle pour la lancer", "Tap the ball to launch it"},
	msgGameAutoIn:          {"Auto dans %d\u00a0s — touchez pour continuer", "Auto in %d\u00a0s — touch to keep playing"},
	msgGameFinishAuto:      {"Finir en Auto", "Finish in Auto"},
	msgGameFinishWait:      {"dans %d\u00a0s ou dès 3 briques restantes", "in %d\u00a0s or when 3 bricks are left"},
	msgGameFinishWaitBonus: {"dans %d\u00a0s", "in %d\u00a0s"},
	msgGameFinishDoes:      {"le système détruit les briques restantes", "the system destroys the bricks left"},
	msgGameResumed:         {"Partie reprise", "Game resumed"},
	msgDevPINs: {"Coin haut-gauche 3\u00a0s\u00a0: personnel %s, technicien %s",
		"Top-left corner 3 s: staff %s, technician %s"},
}

// symbolNames are the keys of each symbol's name, singular and plural.
var symbolNames = [game.NumSymbols][2]msg{
	game.Bird:   {msgSymBirdOne, msgSymBirdMany},
	game.Scarab: {msgSymScarabOne, msgSymScarabMany},
	game.Cross:  {msgSymCrossOne, msgSymCrossMany},
	game.Head:   {msgSymHeadOne, msgSymHeadMany},
	game.Eye:    {msgSymEyeOne, msgSymEyeMany},
	game.Snake:  {msgSymSnakeOne, msgSymSnakeMany},
}

// faultTexts are the out-of-service messages of the kiosk's fault codes.
var faultTexts = map[string]msg{
	kiosk.FaultIntegrity:    msgFaultIntegrity,
	kiosk.FaultStore:        msgFaultStore,
	kiosk.FaultMismatch:     msgFaultMismatch,
	kiosk.FaultRecovery:     msgFaultRecovery,
	kiosk.FaultNoDatabase:   msgFaultNoDB,
	kiosk.FaultNotInstalled: msgFaultNew,
	kiosk.FaultKeys:         msgFaultKeys,
	kiosk.FaultAnchor:       msgFaultAnchor,
	kiosk.FaultRollback:     msgFaultRollback,
	kiosk.FaultSoftware:     msgFaultSoftware,
	kiosk.FaultValidator:    msgFaultValidator,
	kiosk.FaultPrinter:      msgFaultPrinter,
}

// Tr is the catalogue in one language: every text the screens show goes
// through it, and so does every amount (game.Money's French or English form).
// The voice (voice.go) says the same texts through a Tr that speaks
// (Spoken): its amounts are words, as a speaker of the language says them.
type Tr struct {
	Lang Lang
	// spoken: amounts in words ("vingt euros", "twenty euros"), durations
	// in full words, for the voice.
	spoken bool
}

// Spoken is t for the voice: its amounts and durations in words.
func (t Tr) Spoken() Tr { t.spoken = true; return t }

// T is the text of k. A key missing from the catalogue shows as itself in
// brackets: visible, and caught by the tests.
func (t Tr) T(k msg) string {
	e, ok := catalogue[k]
	if !ok {
		return "[" + string(k) + "]"
	}
	if t.Lang == English {
		return e.en
	}
	return e.fr
}

// F formats the text of k with args.
func (t Tr) F(k msg, args ...any) string { return fmt.Sprintf(t.T(k), args...) }

// Money is an amount as the language writes it: "3 750 €", "0,50 €" in French
// (with no-break spaces), "€3,750", "€0.50" in English; in words for the
// voice ("trois mille sept cent cinquante euros").
func (t Tr) Money(m game.Money) string {
	switch {
	case t.spoken && t.Lang == English:
		return m.EnglishWords()
	case t.spoken:
		return m.FrenchWords()
	case t.Lang == English:
		return m.English()
	}
	return m.French()
}

// Stake is a stake as an amount.
func (t Tr) Stake(s game.Stake) string { return t.Money(s.Money()) }

// SymbolName is the name of s, plural when n > 1.
func (t Tr) SymbolName(s game.Symbol, n int) string {
	if !s.Valid() {
		return s.String()
	}
	if n > 1 {
		return t.T(symbolNames[s][1])
	}
	return t.T(symbolNames[s][0])
}

// Combination names a combination: "3 oiseaux", "2 scarabées".
func (t Tr) Combination(c game.Combination) string {
	return t.F(msgCountSymbols, c.Count, t.SymbolName(c.Symbol, c.Count))
}

// Mode names a play mode.
func (t Tr) Mode(m breakout.Mode) string {
	if m == breakout.Auto {
		return t.T(msgModeAuto)
	}
	return t.T(msgModeJouer)
}

// PlayedMode names the mode a game was played in: "Jouer puis Auto" for a
// Jouer game that went on in Auto.
func (t Tr) PlayedMode(e kiosk.HistoryEntry) string {
	if e.Mode == breakout.Play && e.EndedInAuto {
		return t.T(msgModeJouerAuto)
	}
	return t.Mode(e.Mode)
}

// Date writes a time of the history.
func (t Tr) Date(at time.Time) string {
	if t.spoken {
		return t.spokenTime(at)
	}
	return at.Format(t.T(msgDateFormat))
}

// Expiry writes a voucher's expiry as the printed voucher does (date and
// time: kiosk/voucher.go).
func (t Tr) Expiry(at time.Time) string {
	if t.spoken {
		return t.spokenTime(at)
	}
	return at.Format(t.T(msgDateExpiry))
}

// frenchMonths are the months' names in French (time.Format knows only
// English's).
var frenchMonths = [...]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
	"septembre", "octobre", "novembre", "décembre"}

// spokenTime says a date and time as a speaker of the language does:
// "29 janvier 2027 à 11 heures", "29 January 2027 at 11:00" (the voice
// says "eleven o'clock" for the latter).
func (t Tr) spokenTime(at time.Time) string {
	if t.Lang == English {
		return at.Format("2 January 2006 at 15:04")
	}
	s := fmt.Sprintf("%d %s %d à %d heures", at.Day(), frenchMonths[at.Month()-1], at.Year(), at.Hour())
	if m := at.Minute(); m > 0 {
		s += fmt.Sprintf(" %d", m)
	}
	return s
}

// Message is the kiosk's message in the language: the words of its code
// (coreWords), with its values placed. notes are the notes the kiosk takes
// (Snapshot.Cash.Notes), for the messages that name them.
func (t Tr) Message(m kiosk.Message, notes ...game.Money) string {
	if m.IsZero() {
		return ""
	}
	if m.Code == kiosk.MsgNoteRejected {
		switch k := rejectWords[m.Detail]; k {
		case "":
			return t.T(msgNoteRefusedAgain)
		case msgNoteTakes:
			m = kiosk.Message{Code: kiosk.MsgNoteNotTaken}
		default:
			return t.T(k)
		}
	}
	e, ok := coreWords[m.Code]
	if !ok {
		return "[" + string(m.Code) + "]"
	}
	s := e.fr
	if t.Lang == English {
		s = e.en
	}
	if !strings.Contains(s, "%") {
		return s
	}
	detail := ""
	if m.Code == kiosk.MsgValidatorState {
		detail = t.State(m.Detail)
	}
	return fmt.Sprintf(s, t.Money(m.Amount), t.Money(m.Limit), detail, t.Notes(notes))
}

// State is a bill validator's state (id003.State.Key) in words.
func (t Tr) State(key string) string {
	e, ok := stateWords[key]
	if !ok {
		return key
	}
	if t.Lang == English {
		return e.en
	}
	return e.fr
}

// Notes lists notes: "5 €, 10 €, 20 € et 50 €".
func (t Tr) Notes(notes []game.Money) string {
	words := make([]string, len(notes))
	for i, n := range notes {
		words[i] = t.Money(n)
	}
	return t.list(words, msgListAnd)
}

// Stakes lists stakes as a choice: "0,50 € ou 1 €".
func (t Tr) Stakes(stakes []game.Stake) string {
	words := make([]string, len(stakes))
	for i, st := range stakes {
		words[i] = t.Stake(st)
	}
	return t.list(words, msgListOr)
}

// list joins words with commas, and the last two with last (" et ").
func (t Tr) list(words []string, last msg) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + t.T(last) + words[len(words)-1]
}

// DevFault names a fault of the development panel (devsim.Fault).
func (t Tr) DevFault(id string) string { return t.pick(devFaultWords, id) }

// DevRefusal says why the simulated devices refused (devsim.RefusalCode).
func (t Tr) DevRefusal(code string) string { return t.pick(devRefusalWords, code) }

func (t Tr) pick(words map[string]text, key string) string {
	e, ok := words[key]
	if !ok {
		return key
	}
	if t.Lang == English {
		return e.en
	}
	return e.fr
}

// Fault is the out-of-service message of a fault.
func (t Tr) Fault(f kiosk.Fault) string {
	if k, ok := faultTexts[f.Code]; ok {
		return t.T(k)
	}
	return t.F(msgFaultUnknown, f.Code)
}

// coreWords are the words of the core's messages (kiosk.Message): a text
// places the message's values by index, %[1]s its Amount, %[2]s its
// Limit, %[3]s its Detail in words, %[4]s the notes the kiosk takes.
var coreWords = map[kiosk.MessageCode]text{
	kiosk.MsgConnecting: {"Connexion en cours", "Connecting"},
	kiosk.MsgAbsent:     {"Appareil absent", "No such device"},
	kiosk.MsgWorking:    {"En service", "Working"},

	kiosk.MsgPaperLow:            {"Papier bientôt épuisé", "Paper near end"},
	kiosk.MsgPaperOut:            {"Plus de papier", "Out of paper"},
	kiosk.MsgPrinterCoverOpen:    {"Capot de l’imprimante ouvert", "Printer cover open"},
	kiosk.MsgPrinterCutter:       {"Massicot de l’imprimante bloqué", "Printer cutter jammed"},
	kiosk.MsgPrinterFailure:      {"Imprimante en panne", "Printer failure"},
	kiosk.MsgPrinterPaused:       {"Imprimante en pause (tête trop chaude)", "Printer paused (head too hot)"},
	kiosk.MsgPrinterOffline:      {"Imprimante hors ligne", "Printer offline"},
	kiosk.MsgPrinterDisconnected: {"Imprimante déconnectée", "Printer disconnected"},
	kiosk.MsgPrinterProtocol:     {"Imprimante\u00a0: réponse incompréhensible", "Printer: unreadable answer"},
	kiosk.MsgPrinterDocument:     {"Bon impossible à imprimer", "Voucher cannot be printed"},
	kiosk.MsgPrinterError:        {"Erreur de l’imprimante", "Printer error"},

	kiosk.MsgValidatorStarting:     {"Lecteur de billets en initialisation", "Bill validator starting"},
	kiosk.MsgValidatorConfig:       {"Lecteur de billets mal configuré", "Bill validator misconfigured"},
	kiosk.MsgValidatorDisconnected: {"Lecteur de billets déconnecté", "Bill validator disconnected"},
	kiosk.MsgValidatorAnomaly:      {"Anomalie du lecteur de billets\u00a0: voir le journal", "Bill validator anomaly: see the event log"},
	kiosk.MsgValidatorState:        {"%[3]s", "%[3]s"},
	kiosk.MsgNoteForStaff:          {"Billet à vérifier par le personnel", "A note needs staff"},
	kiosk.MsgNoteHeld:              {"Billet de %[1]s à vérifier par le personnel", "A %[1]s note needs staff"},
	kiosk.MsgNotesHeld:             {"Billets à vérifier par le personnel", "Notes need staff"},
	kiosk.MsgNoteTestMode:          {"Mode test\u00a0: billet de %[1]s reconnu, rendu", "Test mode: note of %[1]s recognised, given back"},

	kiosk.MsgCashInValidatorDown: {"Billets refusés pour le moment", "Bank notes refused for now"},
	kiosk.MsgCashInPrinterDown: {"Billets refusés pour le moment\u00a0: aucun bon de paiement ne peut être imprimé",
		"Bank notes refused for now: no payment voucher can be printed"},
	kiosk.MsgCashInNearMax: {"Crédit maximum\u00a0: %[2]s. Votre crédit de %[1]s ne laisse plus de place pour un billet.",
		"Maximum credit: %[2]s. Your credit of %[1]s leaves no room for another note."},
	kiosk.MsgCashInHandPay:     {"Billets refusés pour le moment\u00a0: un paiement manuel attend le personnel", "Bank notes refused for now: a hand-pay awaits the staff"},
	kiosk.MsgCashInMaintenance: {"Billets refusés pour le moment\u00a0: borne en maintenance", "Bank notes refused for now: kiosk in maintenance"},
	kiosk.MsgCashInOff:         {"La borne ne prend pas de billet pour le moment", "The kiosk is not taking notes now"},
	kiosk.MsgCashInPlayerLimit: {"Votre limite de %[2]s est atteinte : billets refusés jusqu’à la fin de la session (%[1]s insérés).",
		"Your %[2]s limit is reached: notes refused until the session ends (%[1]s put in)."},
	kiosk.MsgCashInCeiling: {"Plafond de la borne atteint : %[2]s de billets par session au plus (%[1]s insérés). Billets refusés jusqu’à la fin de la session.",
		"The kiosk’s ceiling is reached: %[2]s of notes per session at most (%[1]s put in). Notes refused until the session ends."},

	kiosk.MsgNoteOverMax: {"Il porterait votre crédit de %[1]s au-delà du maximum de %[2]s.",
		"It would take your credit of %[1]s over the %[2]s maximum."},
	kiosk.MsgNoteOverPlayerLimit: {"Il dépasserait votre limite de %[2]s pour cette session (%[1]s déjà insérés).",
		"It would pass your %[2]s limit for this session (%[1]s already put in)."},
	kiosk.MsgNoteOverCeiling: {"Il dépasserait le plafond de %[2]s de billets par session (%[1]s déjà insérés).",
		"It would pass the ceiling of %[2]s of notes per session (%[1]s already put in)."},
	kiosk.MsgNoteNotTaken:   {"Cette borne prend les billets de %[4]s.", "This kiosk takes %[4]s notes."},
	kiosk.MsgNoteRejected:   {"Le billet a été rendu\u00a0: réessayez dans un instant.", "The note came back: try again in a moment."},
	kiosk.MsgNoteNotTaking:  {"La borne ne prend pas de billet pour le moment.", "The kiosk is not taking notes now."},
	kiosk.MsgNoteKioskError: {"Erreur de la borne\u00a0: adressez-vous au personnel si cela se répète.", "Kiosk error: ask the staff if it happens again."},
	kiosk.MsgNoteReturned:   {"Billet rendu", "Note returned"},
	kiosk.MsgNoteUnitConfig: {"Lecteur de billets mal configuré\u00a0: adressez-vous au personnel.", "Bill validator misconfigured: please ask the staff."},

	kiosk.MsgPayAtCounter:     {"Payable au comptoir", "Payable at the counter"},
	kiosk.MsgPayPaymentCentre: {"À présenter à un centre de paiement", "Present it at a payment centre"},
}

// stateWords name the bill validator's states (id003.State.Key) for staff:
// the development panel, the maintenance screen, the home screen's line
// when notes are refused.
var stateWords = map[string]text{
	"idle":                           {"En attente", "Idle"},
	"accepting":                      {"Lecture du billet", "Accepting"},
	"escrow":                         {"Billet en attente de décision", "Note in escrow"},
	"stacking":                       {"Encaissement", "Stacking"},
	"vend_valid":                     {"Billet accepté", "Note accepted"},
	"stacked":                        {"Billet encaissé", "Note stacked"},
	"rejecting":                      {"Billet refusé", "Rejecting"},
	"returning":                      {"Billet rendu", "Returning"},
	"holding":                        {"Billet retenu", "Holding"},
	"disabled":                       {"Désactivé", "Disabled"},
	"initialize":                     {"Initialisation", "Initialising"},
	"power_up":                       {"Mise sous tension", "Power up"},
	"power_up_with_bill_in_acceptor": {"Mise sous tension, billet dans le lecteur", "Power up with a note in the acceptor"},
	"power_up_with_bill_in_stacker":  {"Mise sous tension, billet dans la caisse", "Power up with a note in the cash box"},
	"stacker_full":                   {"Caisse pleine", "Cash box full"},
	"stacker_open":                   {"Caisse ouverte ou absente", "Cash box open or out"},
	"jam_in_acceptor":                {"Bourrage dans le lecteur", "Jam in acceptor"},
	"jam_in_stacker":                 {"Bourrage dans la caisse", "Jam in the cash box"},
	"pause":                          {"Pause (second billet inséré)", "Paused (second note inserted)"},
	"cheated":                        {"Tentative de fraude", "Fraud attempt"},
	"failure":                        {"Panne du lecteur", "Validator failure"},
	"communication_error":            {"Erreur de communication", "Communication error"},
	"invalid_command":                {"Commande refusée", "Command refused"},
}

// rejectWords tell the player why the validator gave a note back
// (id003.RejectReason.Key), in the player's words: a value the kiosk does
// not take, a note it did not recognise, a note to insert again.
var rejectWords = map[string]msg{
	"insertion_error":             msgNoteInsertAgain,
	"magnetic_pattern_error":      msgNoteUnknown,
	"bill_remaining_in_head":      msgNoteInsertAgain,
	"compensation_error":          msgNoteUnknown,
	"transport_error":             msgNoteInsertAgain,
	"denomination_not_identified": msgNoteUnknown,
	"photo_pattern_error":         msgNoteUnknown,
	"photo_level_error":           msgNoteUnknown,
	"inhibited_denomination":      msgNoteTakes,
	"operation_error":             msgNoteInsertAgain,
	"returned_from_transport":     msgNoteInsertAgain,
	"length_error":                msgNoteUnknown,
	"color_pattern_error":         msgNoteUnknown,
}

// devFaultWords name the development panel's faults (devsim.Fault).
var devFaultWords = map[string]text{
	"validator-jam":          {"Bourrage du lecteur", "Validator jam"},
	"validator-stacker-full": {"Caisse pleine", "Cash box full"},
	"validator-stacker-open": {"Caisse retirée", "Cash box out"},
	"validator-failure":      {"Panne du lecteur", "Validator failure"},
	"validator-unplugged":    {"Lecteur débranché", "Validator unplugged"},
	"printer-paper-out":      {"Plus de papier", "Out of paper"},
	"printer-paper-low":      {"Papier bientôt épuisé", "Paper low"},
	"printer-paper-runs-out": {"Papier épuisé pendant l’impression", "Paper runs out while printing"},
	"printer-cover-open":     {"Capot ouvert", "Cover open"},
	"printer-cutter-jam":     {"Massicot bloqué", "Cutter jammed"},
	"printer-offline":        {"Imprimante hors ligne", "Printer offline"},
	"printer-unplugged":      {"Imprimante débranchée", "Printer unplugged"},
}

// devRefusalWords say why the simulated devices refused an action of the
// development panel (devsim.RefusalCode), short enough for its header.
var devRefusalWords = map[string]text{
	"disabled":      {"le lecteur ne prend pas de billet maintenant", "the validator takes no note now"},
	"busy":          {"un billet est déjà dans le lecteur", "a note is already in the validator"},
	"unplugged":     {"lecteur débranché", "validator unplugged"},
	"unknown_note":  {"billet inconnu du lecteur", "a note the validator does not know"},
	"unknown_fault": {"panne inconnue", "unknown fault"},
	"replug":        {"un câble n’a pas pu être rebranché", "a cable could not be plugged back"},
}
