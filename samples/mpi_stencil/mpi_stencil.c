/* A Jacobi sweep over an N × N grid, rows split across MPI ranks and each
 * rank's rows split across OpenMP threads: the smallest program with the
 * phases of a real stencil code (halo exchange, compute, global reduction).
 *
 * By default the rows are split UNEVENLY on purpose: rank r gets a share
 * proportional to r + 1 (1 : 2 : 3 on three ranks), so the last rank computes
 * the most and the others wait for it in the next halo exchange and in the
 * reduction. --even splits the rows equally, the fix to compare against
 * (td compare UNEVEN_DIR EVEN_DIR).
 *
 *   mpirun -np 3 td_mpi_stencil [--even] [N] [ITERATIONS]   (default 2400, 50)
 *
 * td regions: "init" once, then per iteration "step" holding "halo",
 * "compute" and "reduce" (paths step/halo, step/compute, step/reduce).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <td/td.h>

/* First global row owned by rank r of `size`: the rows are cut at the running
 * sum of the shares (r + 1 each when uneven, 1 each when even), so every row
 * is owned once and the remainder of the division goes to the last ranks. */
static int first_row(int r, int size, int n, int even) {
  const long total = even ? size : (long)size * (size + 1) / 2;
  const long before = even ? r : (long)r * (r + 1) / 2;
  return (int)(n * before / total);
}

int main(int argc, char** argv) {
  /* Only the main thread calls MPI; the OpenMP threads only compute. */
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int even = 0, n = 2400, iterations = 50, positional = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--even") == 0) {
      even = 1;
    } else if (positional == 0) {
      n = atoi(argv[i]);
      positional = 1;
    } else {
      iterations = atoi(argv[i]);
    }
  }
  if (n < 3 * size || iterations < 1) {
    if (rank == 0) fprintf(stderr, "usage: %s [--even] [N >= 3 x ranks] [ITERATIONS >= 1]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }

  const int lo = first_row(rank, size, n, even);
  const int rows = first_row(rank + 1, size, n, even) - lo;
  /* Local rows 1..rows, plus one ghost row above and below for the neighbours'
   * edge rows (or the fixed boundary at the top and bottom of the grid). */
  const size_t stride = (size_t)n;
  double* u = calloc((size_t)(rows + 2) * stride, sizeof(double));
  double* v = calloc((size_t)(rows + 2) * stride, sizeof(double));
  if (!u || !v) {
    fprintf(stderr, "rank %d: out of memory for %d rows\n", rank, rows);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

  TD_REGION_BEGIN("init");
  /* The hot top edge of the grid is rank 0's upper ghost row; every other
   * boundary stays 0. First touch by the threads that will compute the rows. */
#pragma omp parallel for
  for (int i = 0; i < rows + 2; ++i) {
    const double edge = (rank == 0 && i == 0) ? 1.0 : 0.0;
    for (size_t j = 0; j < stride; ++j) u[(size_t)i * stride + j] = v[(size_t)i * stride + j] = edge;
  }
  TD_REGION_END("init");

  double residual = 0.0;
  const double start = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    TD_REGION_BEGIN("step");

    /* Send my first row up and receive my lower ghost row from below, then the
     * other way round. A rank that finished its last compute early waits here
     * for its slower neighbour: imbalance shows up as time in "halo". */
    TD_REGION_BEGIN("halo");
    MPI_Sendrecv(u + stride, n, MPI_DOUBLE, up, 0, u + (size_t)(rows + 1) * stride, n, MPI_DOUBLE,
                 down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(u + (size_t)rows * stride, n, MPI_DOUBLE, down, 1, u, n, MPI_DOUBLE, up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    TD_REGION_END("halo");

    /* The markers sit on the calling thread, around the whole parallel loop,
     * not inside it: "compute" then nests under "step" (on OpenMP's worker
     * threads no "step" is open, so per-thread markers would give a second,
     * top-level "compute"), and its wall time is the team's, barrier included.
     * Its task-clock is this thread's CPU time: its static share of the rows. */
    double local = 0.0;
    TD_REGION_BEGIN("compute");
#pragma omp parallel for reduction(+ : local)
    for (int i = 1; i <= rows; ++i) {
      for (int j = 1; j < n - 1; ++j) {
        const size_t k = (size_t)i * stride + (size_t)j;
        const double next = 0.25 * (u[k - stride] + u[k + stride] + u[k - 1] + u[k + 1]);
        local += (next - u[k]) * (next - u[k]);
        v[k] = next;
      }
    }
    TD_REGION_END("compute");
    double* swap = u;
    u = v;
    v = swap;

    /* Every rank needs the global residual (a convergence test would use it):
     * the fast ranks wait here for the slowest one as well. */
    TD_REGION_BEGIN("reduce");
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    TD_REGION_END("reduce");

    TD_REGION_END("step");
  }
  const double took = MPI_Wtime() - start;

  /* Each rank's row count, gathered so that rank 0 can print the split. */
  int* all_rows = rank == 0 ? malloc((size_t)size * sizeof(int)) : NULL;
  MPI_Gather(&rows, 1, MPI_INT, all_rows, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("mpi_stencil: %d x %d grid, %d iterations, %d ranks, %s rows:", n, n, iterations, size,
           even ? "even" : "uneven");
    for (int r = 0; r < size; ++r) printf(" %d", all_rows[r]);
    printf("\nmpi_stencil: %.3f s, last residual %.6e\n", took, sqrt(residual));
    free(all_rows);
  }
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
