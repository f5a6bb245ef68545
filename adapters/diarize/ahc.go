package diarize

import "math"

const (
	unitFrames = 200 // longest unit of agglomerative clustering: 2 s
	maxUnits   = 600 // more (over ~15 min of speech): the windows' clustering starts instead
)

type gstats struct {
	n       float64
	sum, sq [dimsFrame]float64
}

func (g *gstats) cost() float64 {
	if g.n == 0 {
		return 0
	}
	var c float64
	for j := range g.sum {
		m := g.sum[j] / g.n
		c += math.Log(max(g.sq[j]/g.n-m*m, 0.01))
	}
	return g.n * c
}

func merged(a, b *gstats) gstats {
	out := gstats{n: a.n + b.n}
	for j := range out.sum {
		out.sum[j] = a.sum[j] + b.sum[j]
		out.sq[j] = a.sq[j] + b.sq[j]
	}
	return out
}

// ahcLabels cuts every region into units of at most 2 s, models each as a
// diagonal Gaussian and merges the two units (then clusters) whose merge
// costs the least likelihood (n·log|Σ| grows least) until two are left;
// every frame takes its unit's cluster. nil when there are too many units.
func ahcLabels(fv *frameVectors, regs [][2]int, pause [][]bool) [][]int {
	type unit struct{ ri, from, to int }
	var units []unit
	for ri, r := range regs {
		n := r[1] - r[0]
		k := (n + unitFrames - 1) / unitFrames
		for i := 0; i < k; i++ {
			units = append(units, unit{ri, i * n / k, (i + 1) * n / k})
		}
	}
	if len(units) > maxUnits || len(units) < 2 {
		return nil
	}
	stats := make([]gstats, len(units))
	v := make([]float64, dimsFrame)
	for u, un := range units {
		for i := un.from; i < un.to; i++ {
			if pause[un.ri][i] {
				continue
			}
			fv.vector(un.ri, i, v)
			stats[u].n++
			for j, x := range v {
				stats[u].sum[j] += x
				stats[u].sq[j] += x * x
			}
		}
	}
	cluster := make([]int, len(units)) // unit → cluster id
	active := make([]bool, len(units))
	own := make([]float64, len(units))
	for u := range units {
		cluster[u] = u
		active[u] = stats[u].n > 0
		own[u] = stats[u].cost()
	}
	dist := make([][]float64, len(units))
	for a := range units {
		dist[a] = make([]float64, len(units))
		for b := 0; b < a; b++ {
			if active[a] && active[b] {
				m := merged(&stats[a], &stats[b])
				dist[a][b] = m.cost() - own[a] - own[b]
			}
		}
	}
	left := 0
	for _, a := range active {
		if a {
			left++
		}
	}
	for left > 2 {
		ba, bb, best := -1, -1, math.Inf(1)
		for a := range units {
			if !active[a] {
				continue
			}
			for b := 0; b < a; b++ {
				if active[b] && dist[a][b] < best {
					ba, bb, best = a, b, dist[a][b]
				}
			}
		}
		// Merge a into b.
		stats[bb] = merged(&stats[ba], &stats[bb])
		own[bb] = stats[bb].cost()
		active[ba] = false
		for u := range cluster {
			if cluster[u] == ba {
				cluster[u] = bb
			}
		}
		for c := range units {
			if !active[c] || c == bb {
				continue
			}
			m := merged(&stats[bb], &stats[c])
			d := m.cost() - own[bb] - own[c]
			if c < bb {
				dist[bb][c] = d
			} else {
				dist[c][bb] = d
			}
		}
		left--
	}
	first := -1
	out := make([][]int, len(regs))
	for ri, r := range regs {
		out[ri] = make([]int, r[1]-r[0])
	}
	for u, un := range units {
		c := cluster[u]
		if !active[c] { // a unit with no speech frames: its own id
			continue
		}
		if first < 0 {
			first = c
		}
		l := 0
		if c != first {
			l = 1
		}
		for i := un.from; i < un.to; i++ {
			out[un.ri][i] = l
		}
	}
	return out
}
