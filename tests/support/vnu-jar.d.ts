declare module 'vnu-jar' {
  /** The path of vnu.jar, the Nu Html Checker. */
  const jar: string
  export default jar
}
