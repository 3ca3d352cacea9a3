package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk/update"
)

// lang formats what the tool prints for people: French first (the
// regulation's language and money format), English with -lang en. Errors
// speak the same language as the help: a misuse wholly, a failure by its
// reason, before the detail of the package errors it wraps (failure).
type lang struct {
	en bool
}

func parseLang(s string) (lang, bool) {
	switch strings.ToLower(s) {
	case "fr", "":
		return lang{}, true
	case "en":
		return lang{en: true}, true
	}
	return lang{}, false
}

// tr picks the French or the English text.
func (l lang) tr(fr, en string) string {
	if l.en {
		return en
	}
	return fr
}

// money is "3 750 €" (no-break spaces) or "€3,750".
func (l lang) money(m game.Money) string {
	if l.en {
		return m.English()
	}
	return m.French()
}

// count is "350 000" (no-break space) or "350,000".
func (l lang) count(n int) string { return group(strconv.Itoa(n), l.tr("\u00a0", ",")) }

// decimal is x with two decimals: "4 666,67" or "4,666.67".
func (l lang) decimal(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return "—"
	}
	s := strconv.FormatFloat(x, 'f', 2, 64)
	whole, frac, _ := strings.Cut(s, ".")
	return group(whole, l.tr("\u00a0", ",")) + l.tr(",", ".") + frac
}

// percent is "69,86 %" or "69.86%".
func (l lang) percent(ratio float64) string {
	return l.decimal(100*ratio) + l.tr("\u00a0%", "%")
}

// group inserts sep between groups of three digits of a decimal integer.
func group(digits, sep string) string {
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// symbolNames are the symbols of Art. 4.2, singular and plural.
var symbolNames = map[game.Symbol][2][2]string{ // [fr, en][singular, plural]
	game.Bird:   {{"oiseau", "oiseaux"}, {"bird", "birds"}},
	game.Scarab: {{"scarabée", "scarabées"}, {"scarab", "scarabs"}},
	game.Cross:  {{"croix", "croix"}, {"cross", "crosses"}},
	game.Head:   {{"tête", "têtes"}, {"head", "heads"}},
	game.Eye:    {{"œil", "yeux"}, {"eye", "eyes"}},
	game.Snake:  {{"serpent", "serpents"}, {"snake", "snakes"}},
}

// combination is "3 oiseaux" or "3 birds".
func (l lang) combination(c game.Combination) string {
	i := 0
	if l.en {
		i = 1
	}
	names, ok := symbolNames[c.Symbol]
	if !ok {
		return c.String()
	}
	name := names[i][0]
	if c.Count > 1 {
		name = names[i][1]
	}
	return fmt.Sprintf("%d %s", c.Count, name)
}

func (l lang) usage() string {
	if l.en {
		return usageEN
	}
	return usageFR
}

const usageFR = `pharaon-issuer — l'outil de l'émetteur des blocs d'unités de jeu de Pharaon

Usage :
  pharaon-issuer [-lang fr|en] <commande> [options]

Commandes :
  keygen -out NOM
      Crée une paire de clés Ed25519 : NOM.key (clé privée, PKCS #8 PEM,
      lisible du seul propriétaire) et NOM.pub (clé publique, PKIX PEM, à
      installer sur les bornes). N'écrase jamais un fichier existant.

  generate -emission N -block N -stake 0,50|1|2 -key FICHIER.key -out FICHIER
           [-bonus-share "200,200,200,200,200,200,200,200"]
      Génère et signe un bloc de 350 000 unités (Art. 2 et 3 du règlement)
      dans un ordre tiré au hasard. -bonus-share donne, pour chacun des 8
      rangs de lots, la part en pour mille révélée par le jeu bonus
      (Art. 4.7) ; par défaut 200 ‰ de chaque rang, au moins un lot.
      Le bloc est écrit dans un fichier temporaire, relu et vérifié, puis
      renommé en FICHIER (qu'il remplace d'un coup s'il existe) : jamais
      de fichier partiel.

  verify -key FICHIER.pub [-key FICHIER.pub ...] FICHIER...
      Vérifie chaque bloc comme le fait une borne : signature d'une clé de
      confiance, en-tête, nombre exact de lots de chaque rang. Affiche une
      ligne « ok » par bloc conforme.

  inspect [-key FICHIER.pub ...] FICHIER
      Affiche l'en-tête et la table des lots comptée dans les unités du bloc
      (lots, montants, totaux, lots par le bonus, chances de gain). Sans
      -key, la signature n'est pas vérifiée, et l'affichage le dit.

  update-bundle -key FICHIER.key -deb PAQUET.deb -out FICHIER
                [-version V -arch A]
      Fait un paquet de mise à jour signé des bornes (le .deb de make deb,
      son manifeste et sa signature). La clé est une clé de mise à jour,
      créée par keygen et gardée pour cet usage seul : les bornes la
      trouvent dans /etc/pharaon/update-keys, jamais parmi les clés des
      blocs. Version et architecture viennent du nom du paquet
      (pharaon_VERSION_ARCH.deb) sauf -version et -arch.

  update-bundle -key FICHIER.key -root RACINE.img -kernel VMLINUZ
                -initrd INITRD -version V -arch A -out FICHIER
                [-uki-a A.efi -uki-b B.efi] [-rollback]
      Fait un paquet système signé, pour l'autre emplacement A/B des
      bornes faites de l'image (make system-bundle) : le système de
      fichiers racine, le noyau et l'initrd, et pour les bornes qui
      démarrent en Secure Boot l'image de noyau unifiée signée de chaque
      emplacement. -rollback (aussi pour un .deb) le signe comme retour en
      arrière : une borne le prend même s'il n'est pas plus récent.

  sign-manifest -key FICHIER.key MANIFESTE
      Signe un fichier de sommes SHA-256 (celui du paquet, que make deb
      signe, ou celui de l'image disque, que make image signe) avec une clé
      de mise à jour : MANIFESTE.sig à côté de lui.

  verify-manifest -key FICHIER.pub [-key FICHIER.pub ...] MANIFESTE
      Vérifie MANIFESTE.sig : MANIFESTE signé par une de ces clés. Avant
      de flasher une image : verify-manifest sur pharaon.img.xz.sha256, puis
      sha256sum -c pharaon.img.xz.sha256.

  help
      Affiche cette aide (-lang en : in English).

Codes de sortie : 0 succès, 1 échec (bloc refusé, fichier illisible…),
2 mauvaise utilisation.
`

const usageEN = `pharaon-issuer — the issuer's tool for Pharaon blocks of units of play

Usage:
  pharaon-issuer [-lang fr|en] <command> [options]

Commands:
  keygen -out NAME
      Creates an Ed25519 key pair: NAME.key (private key, PKCS #8 PEM,
      readable by its owner only) and NAME.pub (public key, PKIX PEM, for
      the kiosks). Never overwrites a file.

  generate -emission N -block N -stake 0,50|1|2 -key FILE.key -out FILE
           [-bonus-share "200,200,200,200,200,200,200,200"]
      Generates and signs a block of 350 000 units (regulation Art. 2 and
      3) in random order. -bonus-share gives, for each of the 8 prize
      tiers, the share in per mille revealed through the bonus game
      (Art. 4.7); default 200 per mille of each tier, at least one lot.
      The block is written to a temporary file, read back and verified,
      then renamed to FILE (replacing it at once if it exists): never a
      partial file.

  verify -key FILE.pub [-key FILE.pub ...] FILE...
      Checks each block as a kiosk does: signature by a trusted key,
      header, exact lots of every tier. Prints one "ok" line per good block.

  inspect [-key FILE.pub ...] FILE
      Prints the header and the lot table counted from the block's units
      (lots, amounts, totals, lots via the bonus, odds). Without -key the
      signature is not checked, and the output says so.

  update-bundle -key FILE.key -deb PACKAGE.deb -out FILE
                [-version V -arch A]
      Makes a signed update bundle for the kiosks (the .deb of make deb,
      its manifest and signature). The key is an update key, made by
      keygen and kept for that purpose only: the kiosks find it in
      /etc/pharaon/update-keys, never among the block keys. Version and
      architecture come from the package's name (pharaon_VERSION_ARCH.deb)
      unless -version and -arch are given.

  update-bundle -key FILE.key -root ROOT.img -kernel VMLINUZ
                -initrd INITRD -version V -arch A -out FILE
                [-uki-a A.efi -uki-b B.efi] [-rollback]
      Makes a signed system bundle, for the other A/B slot of the kiosks
      made from the image (make system-bundle): the root file system, the
      kernel and the initrd, and for kiosks that boot with Secure Boot each
      slot's signed unified kernel image. -rollback (also for a .deb) signs
      it as a rollback: a kiosk takes it even when it is not newer.

  sign-manifest -key FILE.key MANIFEST
      Signs a file of SHA-256 sums (the package's, which make deb signs, or
      the disk image's, which make image signs) with an update key:
      MANIFEST.sig beside it.

  verify-manifest -key FILE.pub [-key FILE.pub ...] MANIFEST
      Checks MANIFEST.sig: MANIFEST signed by one of these keys. Before
      flashing an image: verify-manifest on pharaon.img.xz.sha256, then
      sha256sum -c pharaon.img.xz.sha256.

  help
      Prints this help (-lang fr: en français).

Exit status: 0 success, 1 failure (block refused, unreadable file…),
2 misuse.
`

// failureReasons name, in French, what a failure wrapping each error is:
// the detail after it (which file, which unit) is the packages' own, in
// English.
var failureReasons = []struct {
	err error
	fr  string
}{
	{block.ErrSignature, "signature invalide"},
	{block.ErrUnknownKey, "clé d'émetteur non reconnue"},
	{block.ErrCounts, "les lots ne sont pas ceux de la table"},
	{block.ErrTruncated, "fichier de bloc tronqué"},
	{block.ErrTrailing, "données après la signature"},
	{block.ErrHeader, "en-tête de bloc invalide"},
	{block.ErrVersion, "version de format inconnue"},
	{block.ErrFormat, "fichier de bloc mal formé"},
	{update.ErrManifestUnsigned, "manifeste non signé"},
	{update.ErrManifestBad, "signature du manifeste invalide ou clé non reconnue"},
	{fs.ErrNotExist, "fichier introuvable"},
	{fs.ErrPermission, "accès refusé"},
	{context.Canceled, "interrompu"},
}

// failure is what the tool says of a failure, one line per error joined in
// err (verify reports each file): in English the error itself; in French
// its reason first, then the error's detail. The tool's own words are
// French throughout.
func (l lang) failure(err error) []string {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var lines []string
	for _, e := range errs {
		msg := e.Error()
		if !l.en {
			switch {
			case errors.Is(e, errExists):
				msg = strings.Replace(msg, errExists.Error(), "existe déjà ; elle n'est jamais écrasée", 1)
			default:
				for _, r := range failureReasons {
					if errors.Is(e, r.err) {
						msg = r.fr + " : " + msg
						break
					}
				}
			}
		}
		lines = append(lines, strings.Split(msg, "\n")...)
	}
	return lines
}

// flagMessage is a flag parsing error in the language. The flag package
// says it in English; its two common messages are said again in French.
func (l lang) flagMessage(err error) string {
	msg := err.Error()
	if l.en {
		return msg
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return "option inconnue : " + name
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return "l'option " + name + " attend une valeur"
	}
	return "option refusée : " + msg
}
