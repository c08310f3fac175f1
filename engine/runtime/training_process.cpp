#include "engine/runtime/training_process.h"

#include "engine/core/malloc_tuning.h"
#include "engine/runtime/blas_threads.h"
#include "engine/runtime/large_block_cache.h"

namespace dpmix::runtime {

void setUpForTraining(char** argv) {
    relaunchWithQuietBlasThreads(argv);  // first: the restart repeats whatever came before it
    tuneMallocForTraining();
    installLargeBlockCache();  // a training step's large activations, reused between steps
}

}  // namespace dpmix::runtime
