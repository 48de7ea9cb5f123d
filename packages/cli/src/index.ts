/**
 * @since 0.1.0
 */
export * as A2ACall from "./A2ACall.js"
/**
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"
/**
 * @since 0.1.0
 */
export * as CliConfig from "./CliConfig.js"
/**
 * @since 0.1.0
 */
export * as Failure from "./Failure.js"
/**
 * @since 0.1.0
 */
export * as FileAccessStore from "./FileAccessStore.js"
/**
 * @since 0.2.0
 */
export * as HttpDebug from "./HttpDebug.js"
/**
 * @since 0.1.0
 */
export * as Output from "./Output.js"
/**
 * @since 0.1.0
 */
export * as Progress from "./Progress.js"
/**
 * @since 0.2.0
 */
export * as Redact from "./Redact.js"
/**
 * @since 0.2.0
 */
export * as Resume from "./Resume.js"
/**
 * @since 0.2.0
 */
export * as RunRecord from "./RunRecord.js"
/**
 * @since 0.2.0
 */
export * as TerminalText from "./TerminalText.js"
