#!/usr/bin/env bash
# Takes the player's game screenshots of docs/screenshots/ again from the
# real binary: bin/pharaon -dev on a virtual screen (Xvfb) at 1280×800
# (and 1920×1080 for game-1920x1080.png), on a fresh copy of the showcase
# database for each game (cmd/pharaon/showcase_test.go: units whose
# outcome is known), driven with xdotool as a finger would, each picture
# saved with ImageMagick's import. It waits on the kiosk's -fps log (each
# screen and window shown, one line of frame figures a second) rather
# than on fixed sleeps.
#   make screenshots            (or: packaging/screenshots-player.sh [OUT_DIR])
# Needs go, xvfb, xdotool and imagemagick (make screenshots installs the
# last three). Positions are those of the 1280×800 design;
# docs/screenshots/README.md lists them. Look at every picture after a run.
# shellcheck source=packaging/screenshots-lib.sh
source "$(dirname "$0")/screenshots-lib.sh"
player_session

# play inserts a 10 € note through the development panel, chooses the
# stake at x = $1 and starts it in Auto.
play() {
	tap 817 706         # 10 € into the simulated validator
	waitlog "note of"   # credited, and on screen
	tap "$1" 358        # the stake
	tap 1064 459 0      # Auto
	waitlog "show game none"
}

screen 1280x800

# 1 €: three birds.
start
play 947
frames 5
shot game.png 0
tap 1120 400 0     # the cartouche
waitlog "show game prize-table"
shot prize-table.png
tap 480 724 0      # Fermer
waitlog "show game win" 120
shot congratulations.png 3

# 2 €: three snakes, the bonus game.
start
play 1103
waitlog "show game bonus-intro" 120
shot bonus-intro.png 1.6   # the window rises 0,6 s in; the wall replaces it 2,5 s in
# The bonus wall replaces the window (the log does not say when: its
# frame lines, which came on meanwhile, count from the window's).
frames 4
shot bonus.png 0
waitlog "show game bonus-win" 120
shot bonus-congratulations.png 3
tap 480 670 0      # Continuer
waitlog "show game result"
shot result.png 2

# 0,50 €: a loser.
start
play 790
waitlog "show game lose" 120
shot lose.png 2

# The 1 € game at 1920×1080: the design scaled by 1.35 and centred,
# x → 96 + 1.35 x, y → 1.35 y.
screen 1920x1080
start
tap 1199 953       # 10 € (817, 706)
waitlog "note of"
tap 1374 483       # 1 € (947, 358)
tap 1532 620 0     # Auto (1064, 459)
waitlog "show game none"
frames 5
shot game-1920x1080.png 0

echo "screenshots-player: done; look at each picture"
