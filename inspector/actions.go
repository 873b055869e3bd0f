package inspector

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/google/uuid"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// maxProjectFile bounds the bytes of a project file a write-back preview
// reads.
const maxProjectFile = 4 << 20

// actionView is what an action's page says.
type actionView struct {
	ID, NewID string
	At        uint64
	Command   string
	Files     []change
	Dir       string
}

// fork stores a new session that starts from the session as it was at a
// seq, and says how to carry it on.
func (s *Server) fork(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	h, ok := s.header(w, r, r.FormValue("id"))
	if !ok {
		return
	}
	at, err := strconv.ParseUint(r.FormValue("at"), 10, 64)
	if err != nil {
		s.fail(w, http.StatusBadRequest, "at="+printable(oneLine(r.FormValue("at"), 40))+" is not a seq: give a whole number where a batch ends")
		return
	}
	newID := uuid.NewString()
	if err := store.Fork(ctx, s.st, h.ID, at, newID); err != nil {
		s.fail(w, http.StatusUnprocessableEntity, "cannot fork session "+printable(oneLine(h.ID, 120))+" at seq "+strconv.FormatUint(at, 10)+": "+err.Error())
		return
	}
	tags := maps.Clone(h.Tags)
	delete(tags, turnsTag) // the counts were the parent's at its end
	delete(tags, tokensTag)
	delete(tags, cachedTag)
	_ = s.st.SetTags(ctx, newID, tags) // the fork is stored; its labels are a nicety
	s.render(w, "action.html", actionView{ID: h.ID, NewID: newID, At: at, Command: "offshoot chat --resume " + newID})
}

// export answers with the session's state at a seq as snapshot JSON, the
// file 'offshoot snapshot show' reads.
func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	h, ok := s.header(w, r, r.URL.Query().Get("id"))
	if !ok {
		return
	}
	at, err := seqParam(r, "seq", h.Seq)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	snap, reg, err := s.stateAt(r.Context(), h, at)
	var data []byte
	if err == nil {
		data, err = session.MarshalSnapshot(snap, reg)
	}
	if err != nil {
		s.fail(w, http.StatusUnprocessableEntity, fmt.Sprintf("cannot export session %s at seq %d: %v", printable(oneLine(h.ID, 120)), at, err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="snapshot-seq-%d.json"`, at))
	_, _ = w.Write(data)
}

// writeBack previews what writing the session's files at a seq back to
// the project would change: each file that differs from the project's,
// as a unified diff. It writes nothing.
func (s *Server) writeBack(w http.ResponseWriter, r *http.Request) {
	if s.opts.ProjectDir == "" {
		s.fail(w, http.StatusNotFound, "no project directory was given to compare with (Options.ProjectDir)")
		return
	}
	h, ok := s.header(w, r, r.URL.Query().Get("id"))
	if !ok {
		return
	}
	at, err := seqParam(r, "seq", h.Seq)
	if err != nil {
		s.fail(w, http.StatusBadRequest, err.Error())
		return
	}
	snap, _, err := s.stateAt(r.Context(), h, at)
	if err != nil {
		s.fail(w, http.StatusUnprocessableEntity, fmt.Sprintf("cannot read session %s at seq %d: %v", printable(oneLine(h.ID, 120)), at, err))
		return
	}
	root, err := os.OpenRoot(s.opts.ProjectDir)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, "cannot open the project directory: "+err.Error())
		return
	}
	defer root.Close()
	v := actionView{ID: h.ID, At: at, Dir: s.opts.ProjectDir}
	for f := range vfs.FilesOf(snap).All() {
		disk, err := readProjectFile(root, f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			v.Files = append(v.Files, fileChange(f.Path, "added", "", f.Content))
		case err != nil:
			v.Files = append(v.Files, change{Name: f.Path, What: "not compared", Note: err.Error()})
		case disk != f.Content:
			c := change{Name: f.Path, What: "changed"}
			c.Lines, c.Note = unified(lines(disk), lines(f.Content), "project/"+f.Path, "session/"+f.Path)
			v.Files = append(v.Files, c)
		}
	}
	s.render(w, "writeback.html", v)
}

// readProjectFile reads a regular file of the project, inside it (no
// link leads out), at most maxProjectFile bytes.
func readProjectFile(root *os.Root, path string) (string, error) {
	p := filepath.FromSlash(path)
	info, err := root.Lstat(p)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", errors.New("not a regular file in the project; the preview compares regular files only")
	}
	if info.Size() > maxProjectFile {
		return "", fmt.Errorf("%d bytes in the project, more than the preview reads (%d)", info.Size(), maxProjectFile)
	}
	f, err := root.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxProjectFile+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxProjectFile {
		return "", fmt.Errorf("more than the preview reads (%d bytes)", maxProjectFile)
	}
	return string(b), nil
}
