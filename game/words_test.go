package game

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFrenchWords(t *testing.T) {
	cases := map[Money]string{
		0:                          "zéro euro",
		1:                          "un centime",
		50:                         "cinquante centimes",
		100:                        "un euro",
		150:                        "un euro et cinquante centimes",
		200:                        "deux euros",
		3750:                       "trente-sept euros et cinquante centimes",
		2100:                       "vingt et un euros",
		7100:                       "soixante et onze euros",
		7200:                       "soixante-douze euros",
		8000:                       "quatre-vingts euros",
		8100:                       "quatre-vingt-un euros",
		9100:                       "quatre-vingt-onze euros",
		9900:                       "quatre-vingt-dix-neuf euros",
		10000:                      "cent euros",
		10100:                      "cent un euros",
		20000:                      "deux cents euros",
		20100:                      "deux cent un euros",
		12500:                      "cent vingt-cinq euros",
		50000:                      "cinq cents euros",
		100000:                     "mille euros",
		200000:                     "deux mille euros",
		375000:                     "trois mille sept cent cinquante euros",
		1500000:                    "quinze mille euros",
		8000000:                    "quatre-vingt mille euros",
		20000000:                   "deux cent mille euros",
		100000000:                  "un million d'euros",
		200000000:                  "deux millions d'euros",
		20000000000:                "deux cents millions d'euros",
		8000000000:                 "quatre-vingts millions d'euros",
		100000100:                  "un million un euros",
		-150:                       "moins un euro et cinquante centimes",
		12225000:                   "cent vingt-deux mille deux cent cinquante euros",
		1700:                       "dix-sept euros",
		1234567899:                 "douze millions trois cent quarante-cinq mille six cent soixante-dix-huit euros et quatre-vingt-dix-neuf centimes",
		Money(100_000_000_000_000): "un billion d'euros",
		4611686018427387904:        "quarante-six billiards cent seize billions huit cent soixante milliards cent quatre-vingt-quatre millions deux cent soixante-treize mille huit cent soixante-dix-neuf euros et quatre centimes",
		100000000000 * 10:          "dix milliards d'euros",
	}
	for m, want := range cases {
		assert.Equal(t, want, m.FrenchWords(), "%d cents", int64(m))
	}
}

// Every amount of every prize table reads back in words without a gap.
func TestFrenchWordsOfTheTables(t *testing.T) {
	for _, s := range Stakes {
		for _, p := range Table(s).Prizes {
			w := p.Amount.FrenchWords()
			assert.NotContains(t, w, "  ")
			assert.Regexp(t, `(euros?|centimes)$`, w)
		}
	}
}

func TestEnglishWords(t *testing.T) {
	cases := map[Money]string{
		0:           "zero euros",
		1:           "one cent",
		50:          "fifty cents",
		100:         "one euro",
		150:         "one euro and fifty cents",
		3750:        "thirty-seven euros and fifty cents",
		2100:        "twenty-one euros",
		10000:       "one hundred euros",
		10100:       "one hundred and one euros",
		15000:       "one hundred and fifty euros",
		100000:      "one thousand euros",
		105000:      "one thousand and fifty euros",
		375000:      "three thousand seven hundred and fifty euros",
		750000:      "seven thousand five hundred euros",
		1500000:     "fifteen thousand euros",
		100000000:   "one million euros",
		123456789:   "one million two hundred and thirty-four thousand five hundred and sixty-seven euros and eighty-nine cents",
		-450:        "minus four euros and fifty cents",
		20000000000: "two hundred million euros",
	}
	for m, want := range cases {
		assert.Equal(t, want, m.EnglishWords(), "%d cents", int64(m))
	}
}
