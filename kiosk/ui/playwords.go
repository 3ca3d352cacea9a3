package ui

import "pharaon/kiosk/ui/play"

// PlayWords are the game widget's words (kiosk/ui/play) from the catalogue,
// in language l.
func PlayWords(l Lang) play.Words {
	tr := Tr{Lang: l}
	return play.Words{
		Stake:      tr.T(msgGameStake),
		Credit:     tr.T(msgGameCredit),
		Auto:       tr.T(msgGameAuto),
		RedBrick:   tr.T(msgGameRedBrick),
		TapBall:    tr.T(msgGameTapBall),
		AutoIn:     tr.T(msgGameAutoIn),
		FinishAuto: tr.T(msgGameFinishAuto),
		Resumed:    tr.T(msgGameResumed),
		English:    tr.Lang == English,

		FinishWait:      tr.T(msgGameFinishWait),
		FinishWaitBonus: tr.T(msgGameFinishWaitBonus),
		FinishDoes:      tr.T(msgGameFinishDoes),
	}
}
