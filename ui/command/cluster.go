package command

import "tumble/sim"

// SetClusters edits every shape-matching cluster's stiffness, damping and linear share (each in
// [0, 1]) through edit, keeping their members and rest shapes. With no cluster it does nothing.
func SetClusters(edit func(*sim.ClusterDef)) Command {
	return func(s *Session) error {
		w := s.world
		for i := range w.NumClusters() {
			d := w.Cluster(i)
			edit(&d)
			if err := w.SetClusterStiffness(i, d.Stiffness, d.Damping, d.Linear); err != nil {
				return err
			}
		}
		return nil
	}
}
