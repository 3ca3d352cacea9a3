module pharaon

go 1.25.0

require github.com/stretchr/testify v1.12.1

require (
	fyne.io/fyne/v2 v2.7.1 // indirect
	github.com/creack/pty v1.1.24 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	go.bug.st/serial v1.8.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.43.0 // indirect
)
