package breakout

// angleSteps is the number of paddle angles on each side of vertical.
const angleSteps = 32

// angles holds, for k = 0..31, round(16384·sin a) and round(16384·cos a)
// for a = 10° + 50°·k/31 off vertical. Committed as integers so no
// platform's libm or fused multiply-add can change a bounce; angles_test.go
// checks them against math.Sin and math.Cos.
var angles = [angleSteps][2]int32{
	{2845, 16135},  // 10.00°
	{3298, 16049},  // 11.61°
	{3748, 15949},  // 13.23°
	{4196, 15838},  // 14.84°
	{4640, 15713},  // 16.45°
	{5080, 15576},  // 18.06°
	{5517, 15427},  // 19.68°
	{5949, 15266},  // 21.29°
	{6376, 15092},  // 22.90°
	{6799, 14907},  // 24.52°
	{7215, 14710},  // 26.13°
	{7627, 14501},  // 27.74°
	{8032, 14280},  // 29.35°
	{8430, 14049},  // 30.97°
	{8823, 13806},  // 32.58°
	{9208, 13552},  // 34.19°
	{9585, 13287},  // 35.81°
	{9956, 13012},  // 37.42°
	{10318, 12727}, // 39.03°
	{10672, 12431}, // 40.65°
	{11018, 12126}, // 42.26°
	{11355, 11811}, // 43.87°
	{11683, 11487}, // 45.48°
	{12001, 11154}, // 47.10°
	{12311, 10811}, // 48.71°
	{12610, 10461}, // 50.32°
	{12899, 10102}, // 51.94°
	{13179, 9734},  // 53.55°
	{13447, 9360},  // 55.16°
	{13706, 8977},  // 56.77°
	{13953, 8588},  // 58.39°
	{14189, 8192},  // 60.00°
}

// angleIndex is the angle step for a hit at offset off from the paddle's
// centre, half the paddle being hw wide.
func angleIndex(off, hw int64) int {
	if off < 0 {
		off = -off
	}
	k := off * angleSteps / hw
	if k >= angleSteps {
		k = angleSteps - 1
	}
	return int(k)
}

// velocity is the ball's velocity at speed along angle step k, to the
// right when side > 0, always upward.
func velocity(speed int32, k int, side int8) (vx, vy int32) {
	vx = int32(int64(speed) * int64(angles[k][0]) / 16384)
	vy = -int32(int64(speed) * int64(angles[k][1]) / 16384)
	if side < 0 {
		vx = -vx
	}
	return vx, vy
}

// offsetFor is the offset from the paddle's centre at the middle of angle
// step k on side side, for a half paddle hw: where Auto makes the ball hit.
func offsetFor(k int, side int8, hw int64) int64 {
	off := (2*int64(k) + 1) * hw / (2 * angleSteps)
	if side < 0 {
		off = -off
	}
	return off
}
