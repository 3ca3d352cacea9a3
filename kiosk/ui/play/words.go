package play

import "pharaon/game"

// Words are the game widget's texts in the language shown. The screens'
// catalogue (kiosk/ui) fills them: the widget keeps no words of its own.
type Words struct {
	Stake, Credit string // the panel's captions over the stake and the credit
	Auto          string // the badge of a wall played in Auto
	RedBrick      string // the caption of the red brick's hits (Art. 4.7)
	TapBall       string // the tip before the first launch
	AutoIn        string // the countdown to Auto: a format with one %d, the seconds
	FinishAuto    string // the button that finishes the wall in Auto
	// Under the finish button: before it is offered, a format of the
	// seconds that names the FinishBricks bricks left that offer it too
	// (FinishWait) or, on the bonus wall, of the seconds alone
	// (FinishWaitBonus); once offered, what Auto does (FinishDoes,
	// Art. 4.1). The number of bricks is written out, so that its noun's
	// plural is the number's.
	FinishWait, FinishWaitBonus, FinishDoes string
	Resumed                                 string // the notice of a game resumed after a restart
	// English writes the amounts the English way (game.Money.English);
	// French otherwise.
	English bool
}

// money is m as the words' language writes it.
func (w Words) money(m game.Money) string {
	if w.English {
		return m.English()
	}
	return m.French()
}
