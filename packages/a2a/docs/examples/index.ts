import "./src-promise.ts-module-promise-0"
import "./src-promise.ts-function-makeA2AClient-0"
