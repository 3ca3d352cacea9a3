package packaging

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// systemd-repart grows the first partition of the type its file names:
// in the image's partition table exactly one partition has that type, and
// it is the data partition, the disk's last (image/build.sh). A second
// partition of that type before it took the growth in the VM test, and
// the data partition stayed at its image size.
func TestOnlyTheDataPartitionGrows(t *testing.T) {
	conf, err := os.ReadFile("image/repart-data.conf")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^Type=(\S+)$`).FindSubmatch(conf)
	require.NotNil(t, m)
	grown := strings.ToUpper(string(m[1]))

	build, err := os.ReadFile("image/build.sh")
	require.NoError(t, err)
	table := regexp.MustCompile(`(?s)sfdisk -q "\$img" <<SFDISK\n(.*?)\nSFDISK`).FindSubmatch(build)
	require.NotNil(t, table, "the image's partition table in build.sh")
	var parts []string
	for _, line := range strings.Split(string(table[1]), "\n") {
		if strings.Contains(line, "type=") {
			parts = append(parts, line)
		}
	}
	require.Len(t, parts, 6)
	var ofType []int
	for i, p := range parts {
		if strings.Contains(strings.ToUpper(p), "TYPE="+grown) {
			ofType = append(ofType, i)
		}
	}
	assert.Equal(t, []int{len(parts) - 1}, ofType, "one partition of the grown type, the last")
	assert.Contains(t, parts[len(parts)-1], "name=pharaon-data")
}
