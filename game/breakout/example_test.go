package breakout_test

import (
	"fmt"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
)

// A unit of 1 € drawn with the 3-scarab prize, revealed through the bonus
// game, played in Auto: the main wall shows three snakes, the bonus wall's
// red brick falls on its second hit, and the kiosk credits the amount of
// the layout, which is the table's.
func Example() {
	l, err := reveal.Layout(game.Stake100, 2, true, 0x5eed, reveal.Latest)
	if err != nil {
		panic(err)
	}
	w, err := breakout.New(l.Main, breakout.Auto, breakout.DefaultSettings())
	if err != nil {
		panic(err)
	}
	for !w.Done() {
		for _, e := range w.Step(breakout.Input{}) {
			if e.Kind == breakout.SymbolRevealed && e.Symbol == game.Snake {
				fmt.Println("snake")
			}
		}
	}
	out, _ := game.Evaluate(w.Revealed(), l.Stake)
	fmt.Println(w.Revealed() == l.Main.Counts(), out.Kind)

	bonus, err := breakout.New(l.Bonus, w.Mode(), w.Settings())
	if err != nil {
		panic(err)
	}
	for !bonus.Done() {
		for _, e := range bonus.Step(breakout.Input{}) {
			if e.Kind == breakout.RedBrickHit {
				fmt.Printf("red brick %d/2\n", e.N)
			}
		}
	}
	fmt.Println(l.BonusAmount.Plain(), bonus.Tick() <= breakout.AutoBoundTicks)
	// Output:
	// snake
	// snake
	// snake
	// true bonus
	// red brick 1/2
	// red brick 2/2
	// 1 000 EUR true
}
